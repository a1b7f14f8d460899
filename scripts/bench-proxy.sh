#!/bin/bash
# Reproduces the network proxy's download figures in docs/benchmarks.md (section "network proxy"):
#   scripts/bench-proxy.sh
# A 200 MB download by curl through the proxy (https via HTTPS_PROXY: a CONNECT tunnel; http via
# ALL_PROXY=socks5h://: a SOCKS5 tunnel; http via http_proxy: a forwarded request) and directly,
# alternating, with curl, the proxy and the server in processes of their own; prints each mode's
# throughput, the ratio per pair and each party's CPU time per download. ACPTERM_BENCH_REPS
# (default 5) sets the pairs per mode, ACPTERM_BENCH_MODE ("CONNECT", "SOCKS5", "forwarded")
# keeps one mode, ACPTERM_BENCH_RATE (e.g. 100M: curl --limit-rate) paces every download as a
# network link would. Then the in-process Go benchmark (server, proxy and client in one process).
set -euo pipefail
cd "$(dirname "$0")/.."
uptime
go test -tags proxybench -run '^TestProxyBench$' -count=1 -v -timeout 30m ./netproxy/ | grep -v '^=== RUN'
go test -run '^$' -bench 'Download200MB' -benchtime 3x -count 2 ./netproxy/
uptime
