package permissions

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/acpterm/acpterm/permissions/policy"
)

// The child environment is built by policy: a base taken from acpterm's
// own environment (baseEnvNames, PATH replaced by the policy PATH), plus the variables the agent
// asked for that are allowed. An agent variable on the deny list makes the request deny, naming
// it; one that is neither denied nor allowed makes it ask, naming it. Deny beats allow:
// [policy.env] allow cannot re-admit a denied name.

// baseEnvNames are the variables copied from acpterm's own environment into every child
// environment (when set). PATH is not among them: it is always the policy PATH.
var baseEnvNames = []string{
	"HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE",
	"LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "LC_MONETARY", "LC_PAPER", "LC_NAME", "LC_ADDRESS",
	"LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION", "TZ", "TERM", "COLORTERM", "TMPDIR",
	"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"GOPATH", "GOCACHE", "GOMODCACHE", "GOROOT", "CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME",
}

// defaultPolicyPath is used when acpterm's own PATH yields no usable directory.
var defaultPolicyPath = []string{"/usr/local/go/bin", "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// envPolicy is the compiled [policy.env] table.
type envPolicy struct {
	deny  []string
	allow []string
	// userDeny are the [policy.env] deny globs the user added to the built-in list: a name
	// they match is denied whatever its value (safeEnvValue does not apply).
	userDeny []string
}

func compileEnvPolicy(e policy.Env) (*envPolicy, error) {
	p := &envPolicy{}
	add := func(dst *[]string, key string, globs []string) error {
		for i, g := range globs {
			if _, err := path.Match(g, "X"); err != nil || g == "" {
				return fmt.Errorf("%s[%d]: %q is not a valid variable-name glob", key, i, g)
			}
			dup := false
			for _, h := range *dst {
				if h == g {
					dup = true
				}
			}
			if !dup {
				*dst = append(*dst, g)
			}
		}
		return nil
	}
	hidden := policy.HiddenEnvDeny()
	if err := add(&p.deny, "built-in env deny", policy.BuiltinEnvDeny()); err != nil {
		return nil, err
	}
	if err := add(&p.deny, "built-in env deny", hidden); err != nil {
		return nil, err
	}
	if err := add(&p.deny, "policy.env.deny", e.Deny); err != nil {
		return nil, err
	}
	if err := add(&p.deny, "policy.env.deny", e.StrictDeny); err != nil {
		return nil, err
	}
	for _, g := range e.StrictDeny {
		if !slices.Contains(hidden, g) && !slices.Contains(p.userDeny, g) {
			p.userDeny = append(p.userDeny, g)
		}
	}
	if err := add(&p.allow, "built-in env allow", policy.BuiltinEnvAllow()); err != nil {
		return nil, err
	}
	if err := add(&p.allow, "policy.env.allow", e.Allow); err != nil {
		return nil, err
	}
	return p, nil
}

// denied returns the deny glob matching name. Matching ignores case (npm reads npm_config_* and
// NPM_CONFIG_* alike), which only makes the deny list wider.
func (p *envPolicy) denied(name string) (string, bool) {
	if p == nil {
		return "", false
	}
	up := strings.ToUpper(name)
	for _, g := range p.deny {
		if ok, _ := path.Match(strings.ToUpper(g), up); ok {
			return g, true
		}
	}
	return "", false
}

// allowed returns the allow glob matching name (case-sensitive).
func (p *envPolicy) allowed(name string) (string, bool) {
	for _, g := range p.allow {
		if ok, _ := path.Match(g, name); ok {
			return g, true
		}
	}
	return "", false
}

// validEnvName reports a portable variable name: [A-Za-z_][A-Za-z0-9_]*.
func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

type envKV struct{ k, v string }

// buildRuntime derives the policy PATH, HOME and the base environment from getenv.
//
// The policy PATH is acpterm's own PATH with every entry dropped that is relative, missing, not
// a directory, world-writable, or (after resolving symlinks) inside a root — so the agent cannot
// plant a program that a bare name resolves to. If nothing is left, defaultPolicyPath
// (filtered the same way) is used.
func (p *commandPolicy) buildRuntime(getenv func(string) string) *cmdRuntime {
	if getenv == nil {
		getenv = os.Getenv
	}
	rt := &cmdRuntime{getenv: getenv, home: getenv("HOME")}
	filter := func(dirs []string) []string {
		var out []string
		seen := map[string]bool{}
		for _, d := range dirs {
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			d = filepath.Clean(d)
			real, err := p.fs.evalSymlinks(d)
			if err != nil {
				continue
			}
			st, err := p.fs.stat(real)
			if err != nil || !st.IsDir() || st.Mode().Perm()&0o002 != 0 {
				continue
			}
			if p.roots != nil && p.roots.Contains(real) {
				continue
			}
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
		return out
	}
	rt.pathDirs = filter(filepath.SplitList(getenv("PATH")))
	if len(rt.pathDirs) == 0 {
		rt.pathDirs = filter(defaultPolicyPath)
	}
	for _, n := range baseEnvNames {
		if v := getenv(n); v != "" {
			rt.base = append(rt.base, envKV{n, v})
		}
	}
	rt.base = append(rt.base, envKV{"PATH", strings.Join(rt.pathDirs, string(filepath.ListSeparator))})
	return rt
}

// buildEnv builds the child environment for agent variables vars and returns the findings that
// raise the verdict (denied or unknown names). env is "K=V" with later duplicates removed in
// favour of the agent's value; added lists the agent's names in request order, once each.
func (p *commandPolicy) buildEnv(vars []EnvVar, rt *cmdRuntime, dirs []string) (env, added []string, fs []finding) {
	kv := append([]envKV(nil), rt.base...)
	seen := map[string]bool{}
	for _, v := range vars {
		switch {
		case !validEnvName(v.Name):
			fs = append(fs, finding{verdict: Deny, rule: "env: invalid name", reason: fmt.Sprintf("environment variable name %q is not valid ([A-Za-z_][A-Za-z0-9_]*)", v.Name)})
			continue
		case strings.IndexByte(v.Value, 0) >= 0:
			fs = append(fs, finding{verdict: Deny, rule: "env: invalid value", reason: fmt.Sprintf("environment variable %s contains a NUL byte", v.Name)})
			continue
		}
		if why, ok := localePath(v.Name, v.Value, true); ok {
			fs = append(fs, finding{verdict: Ask, rule: "env: locale path", reason: "the agent sets " + why})
		}
		if _, ok := p.safeEnvValue(v.Name, v.Value, dirs); ok {
			// A harmless value of a denied name (a plain pager, the cgo switch, PYTHONPATH
			// inside the roots): allowed like a name on the allow list.
		} else if g, ok := p.env.denied(v.Name); ok {
			fs = append(fs, finding{verdict: Deny, rule: "env deny: " + g, reason: fmt.Sprintf("the agent sets %s, which is on the env deny list (%s): it can make an allowed program run other code", v.Name, g)})
			continue
		} else if _, ok := p.env.allowed(v.Name); !ok {
			fs = append(fs, finding{verdict: Ask, rule: "env: not allowed", reason: fmt.Sprintf("the agent sets %s, which is not on the env allow list ([policy.env] allow)", v.Name)})
		}
		for i := range kv {
			if kv[i].k == v.Name {
				kv = append(kv[:i], kv[i+1:]...)
				break
			}
		}
		kv = append(kv, envKV{v.Name, v.Value})
		if !seen[v.Name] {
			seen[v.Name] = true
			added = append(added, v.Name)
		}
	}
	kv = appendGitConfig(kv, gitSafeConfig)
	kv = setEnvKV(kv, "LESSSECURE", "1")
	env = make([]string, len(kv))
	for i, e := range kv {
		env[i] = e.k + "=" + e.v
	}
	return env, added, fs
}

// setEnvKV sets k to v in kv, replacing any earlier value. Every command gets LESSSECURE=1 this
// way: less (git's, man's and most programs' pager) then has no shell escape (!cmd, |), no
// editor (v) and no file examining or saving, so an agent typing into a pager it started (the
// MCP terminal tools) runs nothing the policy did not judge. LESSSECURE is on the env deny list,
// so neither the agent's variables nor a script can take it back.
func setEnvKV(kv []envKV, k, v string) []envKV {
	out := kv[:0]
	for _, e := range kv {
		if e.k != k {
			out = append(out, e)
		}
	}
	return append(out, envKV{k, v})
}

// gitSafeConfig are git settings every command acpterm runs for the agent gets through git's
// GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n environment (git ≥ 2.31; command
// scope, which counts as protected configuration). safe.bareRepository=explicit (git ≥ 2.38)
// stops git from using a bare repository it discovers in the cwd or above: the agent can write
// plain files HEAD, config ([core] bare = true, pager/fsmonitor/hooksPath/alias …) and
// objects/, refs/ anywhere in a root, and any git command run there (even `git diff
// --no-index`, which the policy treats as read-only) would run that config's programs. A real
// bare repository still works with --git-dir or GIT_DIR (which the policy asks about anyway).
// The agent cannot remove these: GIT_* is on the env deny list (as agent variables, in scripts,
// for `unset` and `env -u`), and `env -i` / `exec -c` are at least ask.
var gitSafeConfig = [][2]string{{"safe.bareRepository", "explicit"}}

// appendGitConfig appends settings to kv as GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n after the ones a
// GIT_CONFIG_COUNT already in kv declares, and sets GIT_CONFIG_COUNT to the new total. A count
// that is not a non-negative integer is replaced (from 0): git itself would refuse to run with it.
func appendGitConfig(kv []envKV, settings [][2]string) []envKV {
	n, at := 0, -1
	for i, e := range kv {
		if e.k == "GIT_CONFIG_COUNT" {
			at = i
			if c, err := strconv.Atoi(e.v); err == nil && c >= 0 {
				n = c
			}
		}
	}
	for _, s := range settings {
		kv = append(kv, envKV{fmt.Sprintf("GIT_CONFIG_KEY_%d", n), s[0]}, envKV{fmt.Sprintf("GIT_CONFIG_VALUE_%d", n), s[1]})
		n++
	}
	count := envKV{"GIT_CONFIG_COUNT", strconv.Itoa(n)}
	if at >= 0 {
		kv[at] = count
	} else {
		kv = append(kv, count)
	}
	return kv
}

// localePath reports a locale variable whose value makes the C library (and gettext) load
// locale data or message catalogs from a path instead of the system's locale directories:
// LOCPATH and NLSPATH (any value), LANG, LANGUAGE and LC_* with a "/" in the value (glibc
// takes such a name as a path to a locale; gettext joins LANGUAGE's entries into catalog
// paths). A value only known at run time may be one. It returns the reason.
func localePath(name, value string, known bool) (string, bool) {
	locale := name == "LANG" || name == "LANGUAGE" || strings.HasPrefix(name, "LC_")
	switch {
	case name == "LOCPATH" || name == "NLSPATH":
		if known && value == "" {
			return "", false
		}
		return fmt.Sprintf("%s, which makes programs load locale data from a path the command chooses", name), true
	case !locale:
		return "", false
	case !known:
		return fmt.Sprintf("%s to a value only known at run time, which may be a path to locale data", name), true
	case strings.Contains(value, "/"):
		return fmt.Sprintf("%s=%s, a path: programs load locale data or message catalogs from it", name, value), true
	}
	return "", false
}

// plainPagers are the pager commands a pager variable may name and still count as harmless:
// the program, then only options that change how text is shown (less -R, -F, -X, -S, -N …).
var plainPagers = map[string]string{"cat": "", "less": "FRXSNiIMmKeEqQsrwJ", "more": ""}

// pagerVars are the variables whose value a program runs as a pager command (git and gh run it
// with sh -c, man with its own shell, systemd and bat directly).
var pagerVars = setOf("PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "GH_PAGER", "BAT_PAGER", "DELTA_PAGER")

// safeEnvValue reports whether the variable name set to value is harmless even though name is
// on the env deny list: a pager variable set to a plain pager (cat, more, or less with display
// options only, nothing else on the line), CGO_ENABLED set to 0 or 1 (the cgo switch; the
// compilers it may run are named by CC/CGO_* and stay denied), and PYTHONPATH whose every entry
// lies inside the roots (relative entries from every candidate directory in dirs; the code
// found there is workspace code, which an allowed python already runs). It returns the reason
// for the audit trail.
func (p *commandPolicy) safeEnvValue(name, value string, dirs []string) (string, bool) {
	if p.env != nil {
		for _, g := range p.env.userDeny {
			if ok, _ := path.Match(strings.ToUpper(g), strings.ToUpper(name)); ok {
				return "", false
			}
		}
	}
	switch {
	case pagerVars[strings.ToUpper(name)]:
		if value == "" {
			return name + " is empty (no pager)", true
		}
		words := strings.Split(value, " ")
		opts, ok := plainPagers[words[0]]
		if !ok {
			return "", false
		}
		for _, w := range words[1:] {
			if len(w) < 2 || w[0] != '-' || strings.Trim(w[1:], opts) != "" {
				return "", false
			}
		}
		return name + "=" + value + " names a plain pager", true
	case name == "CGO_ENABLED":
		return "CGO_ENABLED=" + value + " only switches cgo", value == "0" || value == "1"
	case name == "PYTHONPATH":
		if p.roots == nil || value == "" {
			return "", false
		}
		for _, entry := range strings.Split(value, ":") {
			if entry == "" || strings.ContainsAny(entry, "*?[") {
				return "", false // an empty entry is the current directory of whoever runs python
			}
			var cands []string
			if filepath.IsAbs(entry) {
				cands = []string{entry}
			} else {
				if len(dirs) == 0 {
					return "", false
				}
				for _, d := range dirs {
					cands = append(cands, d+"/"+entry)
				}
			}
			for _, c := range cands {
				real, err := p.roots.fs.realPath(c)
				if err != nil || !p.roots.Contains(real) {
					return "", false
				}
			}
		}
		return "PYTHONPATH=" + value + " lies inside the roots", true
	}
	return "", false
}

// envValue checks one variable a script hands to a child with a known value: a harmless value
// of a denied name (safeEnvValue) is fine; otherwise the name is checked as usual (varName, and
// exportName when exported).
func (a *analyzer) envValue(name, value string, known bool, what string, exported bool) {
	if why, ok := localePath(name, value, known); ok {
		a.notes = append(a.notes, finding{verdict: Ask, rule: "env: locale path", reason: "script sets " + why, construct: "sets " + name})
	}
	if known {
		if _, ok := a.pol.safeEnvValue(name, value, a.cwd.dirs); ok {
			return
		}
	}
	a.varName(name, what)
	a.exportName(name, exported)
}
