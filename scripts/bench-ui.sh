#!/usr/bin/env bash
# bench-ui.sh: measure the interactive UI inside tmux (issue 5, "Performance").
#
#   1. idle:    acpterm --demo --prompt "echo ready", then 10 s of nothing: bytes written to the
#               tty (tmux pipe-pane) and CPU seconds of the acpterm process (/proc/PID/stat).
#   2. latency: keypress-to-screen in a focused pane running `cat` while N other panes flood
#               (and in the prompt editor, no pane focused, while the N panes flood)
#               (each loops `cat` of a generated 4.7 MB mixed SGR/tab/long-line file): a unique
#               token is typed with `tmux send-keys -l` and `tmux capture-pane` is polled until
#               it shows. The harness baseline is the same loop against `cat` directly in tmux.
#               The TUI here is the ui test program (go test -tags benchui, TestBenchUIProgram):
#               the real Model, terminals.Manager and redraw path, without an agent.
#
# Usage: scripts/bench-ui.sh [SAMPLES (default 30)] [FLOODS (default 3)]
# Needs tmux, awk, date with %N. Prints a summary; nothing is asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
SAMPLES=${1:-30}
FLOODS=${2:-3}
W=202 H=54
work=$(mktemp -d /tmp/acpterm-bench-ui.XXXXXX)
sock="bench-ui-$$"
T() { tmux -L "$sock" "$@"; }
cleanup() { T kill-server 2>/dev/null || true; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"; rm -rf "$work"; }
trap cleanup EXIT

echo "== build"
go build -o "$work/acpterm" .
go test -c -tags benchui -o "$work/benchui" ./ui
awk 'BEGIN{for(i=0;i<60000;i++){m=i%4;
  if(m==0) printf "plain line %d lorem ipsum dolor sit amet consectetur\n",i;
  else if(m==1) printf "\033[1;32mbold green %d\033[0m \033[38;5;208midx208\033[0m \033[38;2;255;0;128mtruecolor\033[0m\n",i;
  else if(m==2) printf "\033[44m\tbg blue\ttabbed %d\033[0m\n",i;
  else {s=""; for(j=0;j<12;j++) s=s "wrap" j "-" i " "; print s}}}' > "$work/mixed.txt"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# wait_text PANE TEXT [SECONDS]: poll until TEXT is on the pane's screen.
wait_text() {
	local deadline=$(( $(now_ms) + ${3:-30} * 1000 ))
	until T capture-pane -p -t "$1" | grep -qF -- "$2"; do
		(( $(now_ms) < deadline )) || { echo "timeout waiting for '$2' in $1" >&2; T capture-pane -p -t "$1" >&2; return 1; }
		sleep 0.01
	done
}

# measure PANE LABEL: type SAMPLES tokens, print p50/p90/max of key→screen in ms.
measure() {
	local pane=$1 label=$2 i t0 t1 tok
	local -a lat=()
	for ((i = 0; i < SAMPLES; i++)); do
		tok="q${i}z$RANDOM"
		t0=$(now_ms)
		T send-keys -t "$pane" -l "$tok"
		until T capture-pane -p -t "$pane" | grep -qF -- "$tok"; do :; done
		t1=$(now_ms)
		lat+=($((t1 - t0)))
		T send-keys -t "$pane" Enter
		sleep 0.05
	done
	printf '%s\n' "${lat[@]}" | sort -n | awk -v l="$label" '{a[NR]=$1} END {
		p50=a[int((NR+1)*0.5)]; p90=a[int(NR*0.9+0.5)]; printf "%-44s p50 %4d ms  p90 %4d ms  max %4d ms  (n=%d)\n", l, p50, p90, a[NR], NR }'
}

export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config"
mkdir -p "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
T new-session -d -x "$W" -y "$H" -s bench "sleep 100000"

echo "== idle (demo agent, 10 s after the reply)"
T new-window -t bench -n idle "cd '$work' && exec '$work/acpterm' --demo --cwd '$work' --prompt 'echo ready-for-idle'"
wait_text bench:idle "ready-for-idle"
sleep 2 # let the turn end and the last frame flush
pid=$(T display -p -t bench:idle '#{pane_pid}')
T pipe-pane -t bench:idle -o "cat > '$work/idle.bytes'"
sleep 0.5
cpu0=$(awk '{print $14+$15}' "/proc/$pid/stat")
b0=$(stat -c %s "$work/idle.bytes")
sleep 10
cpu1=$(awk '{print $14+$15}' "/proc/$pid/stat")
b1=$(stat -c %s "$work/idle.bytes")
tck=$(getconf CLK_TCK)
printf 'idle 10 s: %d bytes written to the tty, %s s CPU (acpterm process)\n' $((b1 - b0)) \
	"$(awk -v a="$cpu0" -v b="$cpu1" -v t="$tck" 'BEGIN{printf "%.2f", (b-a)/t}')"
T pipe-pane -t bench:idle
T send-keys -t bench:idle C-q

echo "== harness baseline: cat directly in tmux"
T new-window -t bench -n base "exec cat"
sleep 0.3
measure bench:base "baseline (cat in tmux, no TUI)"

echo "== TUI, focused cat pane, $FLOODS flooding panes"
T new-window -t bench -n tui "cd '$work' && BENCHUI_FLOODS=$FLOODS BENCHUI_FILE='$work/mixed.txt' exec '$work/benchui' -test.run TestBenchUIProgram"
wait_text bench:tui "typing into cat"
sleep 2
measure bench:tui "TUI, focused cat, $FLOODS panes flooding"
T send-keys -t bench:tui C-] C-q

echo "== TUI, typing a prompt into the editor, $FLOODS flooding panes"
T new-window -t bench -n editor "cd '$work' && BENCHUI_FOCUS=0 BENCHUI_FLOODS=$FLOODS BENCHUI_FILE='$work/mixed.txt' exec '$work/benchui' -test.run TestBenchUIProgram"
wait_text bench:editor "flood $FLOODS"
sleep 2
measure bench:editor "TUI, prompt editor, $FLOODS panes flooding"
T send-keys -t bench:editor C-q

echo "== TUI, focused cat pane, no flood"
T new-window -t bench -n quiet "cd '$work' && BENCHUI_FLOODS=0 exec '$work/benchui' -test.run TestBenchUIProgram"
wait_text bench:quiet "typing into cat"
sleep 1
measure bench:quiet "TUI, focused cat, idle panes"
T send-keys -t bench:quiet C-] C-q
