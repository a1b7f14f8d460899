package permissions

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellLineChars are the characters that make a `command` without args a shell line.
const shellLineChars = " \t\n|&;<>()$`\\\"'*?[]{}~#=!"

// isShellLine reports whether a command sent without args must be run as /bin/sh -c (it holds
// whitespace or shell syntax; claude-agent-acp 0.17.1 sends whole lines). A plain program name or path is executed directly.
func isShellLine(s string) bool {
	return strings.ContainsAny(s, shellLineChars)
}

// DecideCommand decides an ACP terminal/create request: it validates the
// request, builds the child environment (denied agent variables → deny, naming them; unknown
// ones → ask), makes the cwd real ("" → the session cwd; relative or outside the roots → deny),
// analyses the command as the shells and the kernel will run it (a /bin/sh line is read as dash
// and as bash, strictest wins; Dialect "bash" reads it as bash and zsh; sh/bash/zsh -c scripts
// recursively in their dialect, wrappers peeled; every script passes the allow-list gate of
// gate.go) and matches every leaf
// (deny > ask > allow; no rule → [policy] unmatched). Constructs that cannot be known statically
// are at least ask; exceeding a budget is deny. Session grants turn leaves that are ask only
// because unmatched into allow. In headless mode "ask" stays "ask" (the caller answers it).
// The returned Decision holds what will run when allowed: Argv, Shell, Cwd, Env.
func (e *Engine) DecideCommand(r CommandRequest) Decision {
	p := e.cmds
	rt := p.runtime(e.opts.Getenv)
	d := Decision{OutputLimit: e.policy.OutputByteLimit}
	var req []finding // request-level findings, in the order they are reported

	// 1. Validate; choose exec form or shell line.
	bad := func(rule, reason string) { req = append(req, finding{verdict: Deny, rule: rule, reason: reason}) }
	if strings.TrimSpace(r.Command) == "" {
		bad("invalid request", "the command is empty")
	}
	if strings.IndexByte(r.Command, 0) >= 0 || strings.IndexByte(r.Cwd, 0) >= 0 {
		bad("invalid request", "the command or cwd contains a NUL byte")
	}
	for i, a := range r.Args {
		if strings.IndexByte(a, 0) >= 0 {
			bad("invalid request", fmt.Sprintf("argument %d contains a NUL byte", i+1))
		}
	}
	if len(r.Args) == 0 && isShellLine(r.Command) {
		d.Argv, d.Shell = []string{"/bin/sh", "-c", r.Command}, true
	} else {
		d.Argv = append([]string{r.Command}, r.Args...)
	}

	// 2. Environment (relative PYTHONPATH entries are taken from the requested cwd).
	var envFs []finding
	envDir := r.Cwd
	if envDir == "" {
		envDir = e.opts.Cwd
	}
	d.Env, d.EnvAdded, envFs = p.buildEnv(r.Env, rt, []string{envDir})

	// 3. cwd.
	cwd := r.Cwd
	if cwd == "" {
		cwd = e.opts.Cwd
	}
	if cwd == "" && e.roots != nil && len(e.roots.List()) > 0 {
		cwd = e.roots.List()[0]
	}
	switch {
	case cwd == "":
		bad("invalid cwd", "no cwd was given and the session has none")
	case !filepath.IsAbs(cwd):
		bad("invalid cwd", fmt.Sprintf("cwd %q is not an absolute path", cwd))
	default:
		real, _, err := e.roots.Resolve(cwd)
		if err != nil {
			bad("cwd outside roots", fmt.Sprintf("cwd: %v", err))
			break
		}
		if st, err := e.roots.fs.stat(real); err != nil || !st.IsDir() {
			bad("invalid cwd", fmt.Sprintf("cwd %s is not an existing directory", real))
			break
		}
		d.Cwd = real
	}
	req = append(req, envFs...)

	// 4. Analysis.
	judge := func(abs string, write bool) *finding {
		var fd Decision
		if write {
			fd = e.DecideWrite(abs)
		} else {
			fd = e.DecideRead(abs)
		}
		// A redirect that writes follows [policy.fs] write like fs/write_text_file does, so
		// `echo x > f` cannot bypass write = "ask". A read through "<" is judged like the same
		// file named as an operand (`cat < f` like `cat f`, which no analysis follows either):
		// neither [policy.fs] read nor the roots apply, deny_read globs still do.
		if fd.Verdict == Allow || (!write && (fd.Rule == "fs.read" || fd.Rule == "outside roots")) {
			return nil // inside a root, not protected, no deny glob
		}
		return &finding{verdict: fd.Verdict, rule: "redirect: " + fd.Rule, reason: fd.Reason, construct: "redirect to " + fd.Path}
	}
	a := newAnalyzer(p, d.Cwd, rt.home, judge)
	a.judgeEntry = func(abs string) *finding {
		fd := e.decideEntry(abs)
		if fd.Verdict == Allow {
			return nil
		}
		return &finding{verdict: fd.Verdict, rule: "redirect: " + fd.Rule, reason: fd.Reason, construct: "redirect to " + fd.Path}
	}
	a.confined = e.opts.Confined
	if r.Dialect == DialectBash {
		a.confined = e.opts.AgentConfined // the agent's own tool runs it
	}
	switch {
	case d.Shell && r.Dialect == DialectBash:
		// The agent's own tool runs the line, in bash (or the user's zsh): judged as bash, and
		// as zsh too, so zsh-only constructs are at least ask.
		a.script(r.Command, actx{lang: syntax.LangBash, langs: []syntax.LangVariant{syntax.LangBash, syntax.LangZsh}, via: []string{"bash -c"}})
	default:
		a.run(staticWords(d.Argv), actx{lang: syntax.LangPOSIX})
	}
	p.finish(&d, a, req, rt, func(l Leaf) (string, bool) { return e.grants.Allows(r.Session, l) })
	return d
}

// finish matches the analysed leaves, applies grants and aggregates everything into d: the
// verdict is the strictest of the request findings, the budget, the leaves and the constructs;
// Rule and Reason come from the first contributor with that verdict.
func (p *commandPolicy) finish(d *Decision, a *analyzer, req []finding, rt *cmdRuntime, grant func(Leaf) (string, bool)) {
	type contrib struct {
		v            Verdict
		rule, reason string
		leaf         int // index into d.Leaves, or -1; the reason is formatted only if chosen
	}
	var all []contrib
	for _, f := range req {
		all = append(all, contrib{f.verdict, f.rule, f.reason, -1})
	}
	if a.over != "" {
		all = append(all, contrib{Deny, "budget", "over the analysis budget: " + a.over + " (fail closed)", -1})
	}
	seen := map[string]bool{}
	addConstruct := func(c string) {
		if c != "" && !seen[c] {
			seen[c] = true
			d.Constructs = append(d.Constructs, c)
		}
	}
	d.Leaves = make([]Leaf, 0, len(a.leaves))
	for i, l := range a.leaves {
		res := p.decideLeaf(l, rt)
		if res.grantable && grant != nil {
			if id, ok := grant(res.Leaf); ok {
				res.Verdict, res.Rule = Allow, "grant: "+id
				res.Reason = "allowed by grant " + id + " (no rule covers it)"
				if d.Grant == "" {
					d.Grant = id
				}
			}
		}
		d.Leaves = append(d.Leaves, res.Leaf)
		for _, c := range res.constructs {
			addConstruct(c)
		}
		all = append(all, contrib{res.Verdict, res.Rule, "", i})
	}
	for _, f := range a.notes {
		if rank(f.verdict) >= rank(Ask) {
			addConstruct(f.construct)
		}
		all = append(all, contrib{f.verdict, f.rule, f.reason, -1})
	}
	if len(all) == 0 {
		d.Verdict, d.Rule, d.Reason = Allow, "no commands", "the script runs no commands"
		return
	}
	best := all[0]
	for _, c := range all[1:] {
		if rank(c.v) > rank(best.v) || (best.rule == "unmatched" && c.v == best.v && c.rule != "unmatched") {
			best = c
		}
	}
	if best.leaf >= 0 {
		l := d.Leaves[best.leaf]
		best.reason = fmt.Sprintf("leaf %d %s: %s", best.leaf+1, quoteArgv(l.Argv), l.Reason)
	}
	d.Verdict, d.Rule, d.Reason = best.v, best.rule, best.reason
}
