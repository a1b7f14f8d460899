#!/usr/bin/env bash
# install-agents.sh [agent...]: install the pinned real ACP agents that acpterm's realagents tests run.
#
#   claude-current @agentclientprotocol/claude-agent-acp@0.101.0 (bundles Claude Code)
#   codex-current  @agentclientprotocol/codex-acp@2.6.0 (Node adapter over the bundled codex)
#   gemini         @google/gemini-cli@0.61.0 (`gemini --acp`)
#   opencode       opencode-ai@1.18.33 (`opencode acp`; npm fetches the native binary)
#   claude         @zed-industries/claude-agent-acp@0.23.1 and @agentclientprotocol/sdk@0.17.0
#                  (the SDK's example agent, dist/examples/agent.js, is the "sdk-example" agent)
#   claude-legacy  @zed-industries/claude-agent-acp@0.17.1 (uses the client's terminal/* and fs/*)
#   codex          @zed-industries/codex-acp@0.16.0 (npm fetches the native binary for this platform)
# With no argument all seven are installed.
#
# Where: $ACPT_AGENTS_DIR (default $HOME/.cache/acpterm-agents). One npm prefix per agent
# ($ACPT_AGENTS_DIR/<agent>), a shared npm cache ($ACPT_AGENTS_DIR/.npm-cache), npm's output in
# $ACPT_AGENTS_DIR/<agent>.install.log. Only the npm registry is contacted.
#
# Idempotent: an agent whose marker file ($ACPT_AGENTS_DIR/<agent>/.acpterm-installed, written only
# after a verified install) names exactly the pinned packages, and whose entry point exists, is
# skipped. Concurrent runs wait for each other (flock on $ACPT_AGENTS_DIR/.install.lock).
# Output: one line per agent on stdout.
# Exit status: 0 all installed; 1 an install failed; 2 bad usage, or node/npm missing or too old.
set -u

pins_of() {
  case $1 in
    claude-current) echo "@agentclientprotocol/claude-agent-acp@0.101.0" ;;
    codex-current) echo "@agentclientprotocol/codex-acp@2.6.0" ;;
    gemini)        echo "@google/gemini-cli@0.61.0" ;;
    opencode)      echo "opencode-ai@1.18.33" ;;
    claude)        echo "@zed-industries/claude-agent-acp@0.23.1 @agentclientprotocol/sdk@0.17.0" ;;
    claude-legacy) echo "@zed-industries/claude-agent-acp@0.17.1" ;;
    codex)         echo "@zed-industries/codex-acp@0.16.0" ;;
  esac
}
ALL="claude-current codex-current gemini opencode claude claude-legacy codex"
DIR=${ACPT_AGENTS_DIR:-$HOME/.cache/acpterm-agents}

die() { echo "install-agents.sh: $*" >&2; exit 2; }

for a in "$@"; do
  case $a in
    claude-current|codex-current|gemini|opencode|claude|claude-legacy|codex) ;;
    -h|--help) sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) die "unknown agent '$a' (known: $ALL)" ;;
  esac
done
# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $ALL

command -v node >/dev/null 2>&1 || die "node not found on PATH (Node.js >= 18 is needed)"
command -v npm >/dev/null 2>&1 || die "npm not found on PATH (Node.js >= 18 with npm is needed)"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || major=0
[ "${major:-0}" -ge 18 ] 2>/dev/null || die "Node.js >= 18 is needed, found $(node --version 2>/dev/null)"

mkdir -p "$DIR" || die "cannot create $DIR"
DIR=$(cd "$DIR" && pwd)
if command -v flock >/dev/null 2>&1; then
  exec 9>"$DIR/.install.lock" || die "cannot open $DIR/.install.lock"
  flock 9 || die "cannot lock $DIR/.install.lock"
fi

platform() {
  local os arch
  case $(uname -s) in Linux) os=linux ;; Darwin) os=darwin ;; *) os=unknown ;; esac
  case $(uname -m) in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) arch=unknown ;; esac
  echo "$os-$arch"
}

# entry_of AGENT: the file that must exist for the agent to run.
entry_of() {
  local nm=$DIR/$1/node_modules
  case $1 in
    claude-current) echo "$nm/@agentclientprotocol/claude-agent-acp/dist/index.js" ;;
    codex-current) echo "$nm/@agentclientprotocol/codex-acp/dist/index.js" ;;
    gemini)        echo "$nm/@google/gemini-cli/bundle/gemini.js" ;;
    opencode)      echo "$nm/opencode-$(platform)/bin/opencode" ;;
    claude|claude-legacy) echo "$nm/@zed-industries/claude-agent-acp/dist/index.js" ;;
    codex)                echo "$nm/@zed-industries/codex-acp-$(platform)/bin/codex-acp" ;;
  esac
}

version_of() { # version_of AGENT PACKAGE: installed version or ""
  local pj=$DIR/$1/node_modules/$2/package.json
  [ -f "$pj" ] && node -p 'require(process.argv[1]).version' "$pj" 2>/dev/null
}

rc=0
for agent in "$@"; do
  pins=$(pins_of "$agent"); prefix=$DIR/$agent; marker=$prefix/.acpterm-installed
  log=$DIR/$agent.install.log; entry=$(entry_of "$agent")
  if [ -f "$marker" ] && [ "$(cat "$marker")" = "$pins" ] && [ -e "$entry" ]; then
    printf '%-14s already installed: %s\n' "$agent" "$pins"
    continue
  fi
  rm -f "$marker"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  if ! npm install --prefix "$prefix" --cache "$DIR/.npm-cache" --save-exact --include=optional \
      --no-audit --no-fund --no-update-notifier $pins >"$log" 2>&1; then
    printf '%-14s FAILED: npm install %s (see %s)\n' "$agent" "$pins" "$log"
    grep '^npm error' "$log" | head -n 8 | sed 's/^/    /' >&2
    rc=1; continue
  fi
  problem=
  for spec in $pins; do
    name=${spec%@*}; want=${spec##*@}; got=$(version_of "$agent" "$name")
    [ "$got" = "$want" ] || problem="$name is ${got:-missing}, want $want"
  done
  [ -n "$problem" ] || [ -e "$entry" ] || problem="$entry is missing (no binary for $(platform)?)"
  if [ -z "$problem" ] && [ "$agent" = codex-current ] && [ ! -d "$prefix/node_modules/@openai/codex-$(platform)" ]; then
    problem="$prefix/node_modules/@openai/codex-$(platform) is missing (no native codex for $(platform)?)"
  fi
  if [ -n "$problem" ]; then
    printf '%-14s FAILED: %s\n' "$agent" "$problem"
    rc=1; continue
  fi
  echo "$pins" >"$marker"
  printf '%-14s installed: %s (%ss)\n' "$agent" "$pins" "$(( $(date +%s) - t0 ))"
done
exit $rc
