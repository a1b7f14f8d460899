#!/bin/sh
# Reproduces the sandbox figures in docs/benchmarks.md (section "sandbox"):
#   scripts/bench-sandbox.sh [FILE]     FILE defaults to /tmp/acpterm-mixed.txt
# exec latency of `true` and of a 10-leaf shell line with and without the sandbox (p50 of
# ACPTERM_BENCH_EXECS, default 40, alternating), the helper's memory, and the 100 MB flood of
# scripts/bench-terminals.sh with and without the sandbox (median of ACPTERM_BENCH_REPS, default 3).
# The test is in the root package (main_sandboxbench_test.go): the helper is the test binary
# re-executed, and that one links all of acpterm, as the real binary does.
set -eu
cd "$(dirname "$0")/.."
FILE=${1:-/tmp/acpterm-mixed.txt}
ACPTERM_BENCH_GENERATE_ONLY=1 sh scripts/bench-terminals.sh "$FILE"
ACPTERM_BENCH_FILE="$FILE" go test -tags sandboxbench -run '^TestSandboxBench$' -count=1 -v -timeout 30m . |
	grep -v '^=== RUN'
