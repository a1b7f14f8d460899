package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions"
)

// runPolicy runs `acpterm policy check [--json] [--config FILE] [--cwd DIR] -- COMMAND [ARGS...]`: it
// prints the policy's decision for the command for a person (verdict, rule, reason, each leaf
// with its verdict and reason; permissions.Engine.ExplainText; then the sandbox the verdict
// assumed, as the session's own check finds it), or as JSON with --json
// (permissions.Engine.Explain), and exits 0
// whatever the verdict; 2 for a usage or config error. A single COMMAND word containing spaces
// or shell syntax is analysed as a shell line, as terminal/create would run it.
func runPolicy(args []string, std stdio, getenv func(string) string) int {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(std.err, "acpterm: usage: acpterm policy check [--json] [--config FILE] [--cwd DIR] -- COMMAND [ARGS...]")
		return exitUsage
	}
	p, err := parsePolicyCheck(args[1:])
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: %s\n", trimUsage(err))
		return exitUsage
	}
	cwd, err := sessionDir(cliOptions{cwd: p.cwd})
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: policy check: %s\n", trimUsage(err))
		return exitUsage
	}
	sweepLeftovers(getenv, std.err, nil) // before the config: a planted one is never read
	cfg, err := config.Load(config.LoadOptions{Path: p.configPath, Cwd: cwd, Getenv: getenv})
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: policy check: config: %v\n", err)
		return exitUsage
	}
	// The verdict depends on whether commands would run confined (an allow rule covers a
	// workspace-code runner only then): the session's own sandbox check decides it here too.
	sb, err := sandboxFor(cfg, "", getenv, nil)
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: policy check: %v\n", err)
		return exitUsage
	}
	defer sb.close()
	engine, err := permissions.NewEngine(cfg.Permissions(getenv), permissions.EngineOptions{
		Cwd: cwd, GrantsFile: config.DefaultGrantsFile(getenv), Getenv: getenv,
		Confined: sb.confined(), AgentConfined: sb.confined() && cfg.Sandbox.Agent,
	})
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: policy check: policy: %v\n", err)
		return exitUsage
	}
	req := permissions.CommandRequest{Session: "policy-check", Command: p.command[0], Args: p.command[1:], Cwd: cwd}
	if !p.json {
		confined := "commands run confined"
		if !sb.confined() {
			confined = "commands do not run confined"
		}
		_, _ = io.WriteString(std.out, engine.ExplainText(req))
		fmt.Fprintf(std.out, "sandbox:    %s (%s)\n", strings.TrimPrefix(sb.summary(), "sandbox: "), confined)
		return exitOK
	}
	out, err := engine.Explain(req)
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: policy check: %v\n", err)
		return exitFailure
	}
	if len(out) == 0 || out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	_, _ = std.out.Write(out)
	return exitOK
}

// runAudit runs `acpterm audit verify [FILE]`: it checks the hash chain of the audit log (default
// $XDG_STATE_HOME/acpterm/audit.jsonl). Exit 0 and "ok: N events …" when intact, 1 when the chain
// is broken (the message names the first bad line), 2 for a usage error or a missing file.
func runAudit(args []string, std stdio, getenv func(string) string) int {
	if len(args) == 0 || args[0] != "verify" || len(args) > 2 {
		fmt.Fprintln(std.err, "acpterm: usage: acpterm audit verify [FILE]")
		return exitUsage
	}
	path := config.DefaultAuditLog(getenv)
	if len(args) == 2 {
		path = args[1]
	}
	if path == "" {
		fmt.Fprintln(std.err, "acpterm: audit verify: no audit log path: set HOME or XDG_STATE_HOME, or name the FILE")
		return exitUsage
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(std.err, "acpterm: audit verify: %s does not exist\n", path)
		} else {
			fmt.Fprintf(std.err, "acpterm: audit verify: %v\n", err)
		}
		return exitUsage
	}
	n, note, err := permissions.VerifyAuditNote(path)
	if err != nil {
		fmt.Fprintf(std.err, "acpterm: audit verify: %v (%d events before it are intact)\n", err, n)
		return exitFailure
	}
	fmt.Fprintf(std.out, "ok: %d events, hash chain intact: %s\n", n, path)
	if note != "" {
		fmt.Fprintf(std.out, "note: %s\n", note)
	}
	return exitOK
}
