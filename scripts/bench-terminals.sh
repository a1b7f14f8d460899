#!/bin/sh
# Reproduces the terminals/ figures in docs/benchmarks.md (section "terminals").
#   scripts/bench-terminals.sh [FILE]     FILE defaults to /tmp/acpterm-mixed.txt
# 1. generates a 100 MB mixed file (plain, bold/256/truecolour SGR, background
#    and reverse lines with tabs, 260-column lines that wrap at 200, UTF-8),
# 2. times `cat FILE` in a 200x50 PTY: raw read vs acpterm's engine vs tmux,
#    in one run (median of ACPTERM_BENCH_REPS, default 3), prints ratios,
#    compares the final visible rows with tmux capture-pane, reports memory,
# 3. runs the transcript throughput benchmark (-benchmem).
# With ACPTERM_BENCH_GENERATE_ONLY=1 it only generates FILE (scripts/bench-sandbox.sh).
set -eu
cd "$(dirname "$0")/.."
FILE=${1:-/tmp/acpterm-mixed.txt}
SIZE=104857600
if [ ! -f "$FILE" ] || [ "$(wc -c <"$FILE")" -lt "$SIZE" ]; then
	echo "generating $FILE ..." >&2
	LC_ALL=C awk -v size="$SIZE" 'BEGIN {
		long = ""; for (i = 0; i < 26; i++) long = long "wrap-" sprintf("%04d", i) " ";
		n = 0; bytes = 0;
		while (bytes < size) {
			k = n % 6;
			if (k == 0)      s = sprintf("plain line %d: the quick brown fox jumps over the lazy dog", n);
			else if (k == 1) s = sprintf("\033[1;32mbold green\033[0m \033[38;5;%dmidx %d\033[0m \033[38;2;%d;%d;%dmtruecolour\033[0m line %d", n % 256, n % 256, n % 256, (n * 7) % 256, (n * 13) % 256, n);
			else if (k == 2) s = sprintf("\033[44mbackground\tcol\t%d\033[0m \033[7mreverse\033[0m\tend", n);
			else if (k == 3) s = sprintf("%d %s", n, long long);
			else if (k == 4) s = sprintf("utf-8 line %d: caf\303\251 na\303\257ve \346\227\245\346\234\254\350\252\236 \342\202\254 %d", n, n * 3);
			else             s = sprintf("\033[1mmake\033[0m[%d]: \033[31merror\033[0m: something %d failed\ttab", n % 9, n);
			print s; bytes += length(s) + 1; n++;
		}
	}' >"$FILE"
fi
[ "${ACPTERM_BENCH_GENERATE_ONLY:-}" = 1 ] && exit 0
echo "== flood benchmark (raw PTY vs acpterm vs tmux, one run)"
ACPTERM_BENCH_FILE="$FILE" go test -tags floodbench -run '^TestFloodBench$' -count=1 -v -timeout 30m ./terminals/ |
	grep -v '^=== RUN'
echo "== transcript throughput"
go test -run '^$' -bench '^BenchmarkTranscript$' -benchmem -count=3 ./terminals/
