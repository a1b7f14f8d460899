package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	toml "github.com/pelletier/go-toml/v2"
	"mvdan.cc/sh/v3/syntax"

	"github.com/acpterm/acpterm/permissions/policy"
)

// DefaultsSource is Config.Source when no user config file was read.
const DefaultsSource = "built-in defaults"

// ProjectFileName is the project file looked up in the session cwd; it may only tighten.
const ProjectFileName = ".acpterm.toml"

// Built-in values (see Default).
const (
	DefaultOutputByteLimit = 1 << 20         // bytes
	DefaultKillGrace       = 2 * time.Second // SIGTERM → SIGKILL
	DefaultMaxTerminals    = 16
	MaxOutputByteLimit     = 256 << 20 // largest accepted output_byte_limit (bytes)
	MaxMaxTerminals        = 256
	MaxKillGrace           = time.Minute
)

// BuiltinAllow returns the small read-only command set allowed without a config file (a fresh
// copy). User and project [policy.commands] lists extend it; to take one back, list the same
// prefix under ask or deny (deny > ask > allow).
func BuiltinAllow() []string { return slices.Clone(builtinAllow) }

// BuiltinDeny returns the commands always denied, whatever a config file says (a fresh copy).
func BuiltinDeny() []string { return slices.Clone(builtinDeny) }

// KeyActions returns (a fresh copy of) the action names accepted in [ui.keys]: the v1 set
// (quit, cancel, leave_pane, focus_next, zoom, scroll_up, scroll_down, pager, close_pane,
// grants, help, approve_once, approve_always, reject_once, reject_always) plus the ui
// package's own finer actions.
func KeyActions() []string { return slices.Clone(keyActions) }

// builtinAllow, builtinDeny and keyActions hold what the functions above return.
var builtinAllow = []string{
	"ls", "cat", "head", "tail", "wc", "grep", "rg", "echo", "printf", "pwd", "true", "date",
	"sleep", "git status", "git diff", "git log", "git show",
}

var builtinDeny = []string{"sudo", "su", "doas", "pkexec"}

var keyActions = []string{
	"quit", "cancel", "leave_pane", "focus_next", "zoom", "scroll_up", "scroll_down", "pager",
	"close_pane", "grants", "help", "approve_once", "approve_always", "reject_once", "reject_always",
	"interrupt", "send", "newline", "complete", "history_prev", "history_next", "next_pane",
	"focus_pane", "pane_scroll_up", "pane_scroll_down", "toggle_thoughts", "cycle_mode", "cycle_model",
	"kill_pane", "suspend", "conversation_pager", "answer", "sessions", "options",
	"pane_1", "pane_2", "pane_3", "pane_4", "pane_5", "pane_6", "pane_7", "pane_8", "pane_9", "last_pane",
	"prefix", "copy_mode",
	"restart_agent", "queue",
}

// Default returns the built-in configuration for a session in cwd (made real with
// EvalSymlinks when possible): roots = [cwd], unmatched = "ask", BuiltinAllow/BuiltinDeny,
// BuiltinEnvDeny, output limit 1 MiB, fs read "allow" / write "ask", kill grace 2 s, 16
// terminals, theme "auto", no key overrides. Source is DefaultsSource.
func Default(cwd string) *Config {
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	return &Config{
		Source: DefaultsSource,
		Policy: Policy{
			Roots:           []string{cwd},
			Unmatched:       "ask",
			OutputByteLimit: DefaultOutputByteLimit,
			Commands: Commands{
				Allow: BuiltinAllow(),
				Deny:  BuiltinDeny(),
			},
			Env:          Env{Deny: policy.BuiltinEnvDeny()},
			FS:           FS{Read: "allow", Write: "ask"},
			Network:      Network{Unmatched: "ask"},
			KillGrace:    DefaultKillGrace,
			MaxTerminals: DefaultMaxTerminals,
		},
		UI:      UI{Theme: "auto", Notify: []string{"bell", "title", "desktop"}, NotifyAfter: DefaultNotifyAfter, Mouse: true},
		Agent:   Agent{Mode: DefaultAgentMode},
		MCP:     MCP{Terminals: true},
		Sandbox: Sandbox{Mode: "auto", Network: "proxy"},
	}
}

// DefaultAgentMode is [agent] mode's default: switch to the agent's asking mode.
const DefaultAgentMode = "asking"

// LoadOptions say where to look for configuration.
type LoadOptions struct {
	// Path is the --config file; "" means $XDG_CONFIG_HOME/acpterm/config.toml if it exists,
	// else the built-in defaults. A Path that does not exist is an error.
	Path string
	// Cwd is the session cwd: the default root and where .acpterm.toml is looked up.
	// "" means the process working directory.
	Cwd string
	// Getenv reads the environment for XDG dirs, ~ and $VAR expansion; nil means os.Getenv.
	Getenv func(string) string
}

// Load finds, parses and validates the configuration: built-in defaults, then the user file
// (LoadOptions.Path or the XDG one), then the project file .acpterm.toml in Cwd, which may only
// tighten. Merging: scalar keys replace the default; [policy.commands] allow/ask/deny, [policy.env]
// deny/allow and [policy.fs] deny_read/deny_write lists extend the built-in ones (BuiltinDeny
// always stays); roots replace the default root. ~ and $VAR/${VAR} expand in roots and fs globs.
// Every error is an *Error naming file:line:col and the key: unknown keys, wrong types, bad values,
// roots that do not exist, unset variables, and project keys that would widen the policy.
func Load(o LoadOptions) (*Config, error) {
	getenv := orEnv(o.Getenv)
	cwd := o.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, &Error{File: "<cwd>", Msg: err.Error()}
		}
		cwd = wd
	}
	if !filepath.IsAbs(cwd) {
		return nil, &Error{File: cwd, Msg: "the session cwd must be an absolute path"}
	}
	realCwd, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return nil, &Error{File: cwd, Msg: "the session cwd does not exist or cannot be resolved: " + errText(err)}
	}
	cfg := Default(realCwd)

	path := o.Path
	if path == "" {
		if cand := UserConfigFile(getenv); cand != "" {
			cfg.UserFile = cand
			if _, err := os.Stat(cand); err == nil {
				path = cand
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, &Error{File: cand, Msg: errText(err)}
			}
		}
	} else {
		path = expandTilde(path, getenv) // a relative path is relative to the process cwd
	}
	if path != "" {
		if err := applyFile(cfg, path, realCwd, false, getenv); err != nil {
			return nil, err // errors name the file as given
		}
		cfg.Source = path
		if abs, err := filepath.Abs(path); err == nil {
			cfg.Source = abs // absolute, so the engine can protect it
		}
		cfg.UserFile = cfg.Source
	}

	proj := filepath.Join(realCwd, ProjectFileName)
	if st, err := os.Stat(proj); err == nil && st.Mode().IsRegular() {
		if err := applyFile(cfg, proj, realCwd, true, getenv); err != nil {
			return nil, err
		}
		cfg.Project = proj
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{File: proj, Msg: errText(err)}
	} else if err == nil {
		return nil, &Error{File: proj, Msg: "not a regular file"}
	}
	return cfg, nil
}

// unsafeOwner refuses a policy file another user could have written: world-writable, or owned
// by someone other than the current user or root. "" when fine.
func unsafeOwner(file string) string {
	st, err := os.Stat(file)
	if err != nil {
		return errText(err)
	}
	if st.Mode().Perm()&0o002 != 0 {
		return fmt.Sprintf("refusing a policy file that anyone can write (mode %04o); run chmod o-w on it", st.Mode().Perm())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() && sys.Uid != 0 {
		return fmt.Sprintf("refusing a policy file owned by another user (uid %d)", sys.Uid)
	}
	return ""
}

// within reports whether p is base or beneath it (filepath.Rel, never a string prefix).
func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// errText strips the *PathError prefix so messages do not repeat the path.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// The on-disk shape. Pointers and pointer-to-slices tell "absent" from "empty".
type fileConfig struct {
	Agent   *fileAgent   `toml:"agent"`
	Policy  *filePolicy  `toml:"policy"`
	UI      *fileUI      `toml:"ui"`
	MCP     *fileMCP     `toml:"mcp"`
	Sandbox *fileSandbox `toml:"sandbox"`
}

type fileMCP struct {
	Terminals *bool `toml:"terminals"`
}

type fileSandbox struct {
	Mode       *string   `toml:"mode"`
	Network    *string   `toml:"network"`
	Agent      *bool     `toml:"agent"`
	AgentWrite *[]string `toml:"agent_write"`
}

type fileAgent struct {
	Command *[]string `toml:"command"`
	Mode    *string   `toml:"mode"`
}

type filePolicy struct {
	Roots           *[]string     `toml:"roots"`
	Unmatched       *string       `toml:"unmatched"`
	OutputByteLimit *int64        `toml:"output_byte_limit"`
	KillGrace       *string       `toml:"kill_grace"`
	MaxTerminals    *int64        `toml:"max_terminals"`
	Commands        *fileCommands `toml:"commands"`
	Env             *fileEnv      `toml:"env"`
	FS              *fileFS       `toml:"fs"`
	Network         *fileNetwork  `toml:"network"`
}

type fileNetwork struct {
	AgentAllow *[]string `toml:"agent_allow"`
	Allow      *[]string `toml:"allow"`
	Deny       *[]string `toml:"deny"`
	Unmatched  *string   `toml:"unmatched"`
}

type fileCommands struct {
	Allow *[]string `toml:"allow"`
	Ask   *[]string `toml:"ask"`
	Deny  *[]string `toml:"deny"`
}

type fileEnv struct {
	Deny  *[]string `toml:"deny"`
	Allow *[]string `toml:"allow"`
}

type fileFS struct {
	Read      *string   `toml:"read"`
	Write     *string   `toml:"write"`
	DenyRead  *[]string `toml:"deny_read"`
	DenyWrite *[]string `toml:"deny_write"`
}

type fileUI struct {
	Theme       *string             `toml:"theme"`
	Notify      *[]string           `toml:"notify"`
	NotifyAfter *string             `toml:"notify_after"`
	Mouse       *bool               `toml:"mouse"`
	Keys        map[string][]string `toml:"keys"`
}

// loader carries one file's state while it is validated and merged.
type loader struct {
	cwd     string // the real session cwd
	file    string
	project bool
	idx     positions
	getenv  func(string) string
}

// errf reports a bad value at key (positioned at the value, or the array element).
func (l *loader) errf(key, format string, args ...any) *Error {
	return l.errAt(l.idx.value(key), key, format, args...)
}

func (l *loader) errAt(p pos, key, format string, args ...any) *Error {
	k := key
	if i := strings.IndexByte(k, '['); i >= 0 {
		k = k[:i]
	}
	return &Error{File: l.file, Line: p.Line, Col: p.Col, Key: k, Msg: fmt.Sprintf(format, args...)}
}

// widen is the error for a project-file key that would loosen the policy.
func (l *loader) widen(key, what string) *Error {
	return l.errAt(l.idx.at(key), key, "a project file (%s) may only tighten the policy; %s", ProjectFileName, what)
}

// applyFile parses, validates and merges one file into cfg.
func applyFile(cfg *Config, file, cwd string, project bool, getenv func(string) string) error {
	if st, err := os.Stat(file); err != nil {
		return &Error{File: file, Msg: errText(err)}
	} else if !st.Mode().IsRegular() { // a FIFO would block the read
		return &Error{File: file, Msg: "not a regular file"}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return &Error{File: file, Msg: errText(err)}
	}
	// A UTF-8 byte order mark (Windows editors write one) is not part of the TOML document.
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if msg := unsafeOwner(file); msg != "" && !project { // a project file can only tighten
		return &Error{File: file, Msg: msg}
	}
	var fc fileConfig
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return decodeErr(file, data, err)
	}
	l := &loader{cwd: cwd, file: file, project: project, idx: indexPositions(data), getenv: getenv}
	if project {
		return l.tighten(cfg, &fc)
	}
	return l.merge(cfg, &fc)
}

var (
	verdicts = []string{"allow", "ask", "deny"}
	themes   = []string{"auto", "dark", "light"}
)

func verdictRank(v string) int { return slices.Index(verdicts, v) }

func (l *loader) enum(key string, v *string, allowed []string) (string, *Error) {
	if !slices.Contains(allowed, *v) {
		return "", l.errf(key, "must be %s, not %q", quoteList(allowed), *v)
	}
	return *v, nil
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// merge applies a user file.
func (l *loader) merge(cfg *Config, fc *fileConfig) error {
	if m := fc.MCP; m != nil && m.Terminals != nil {
		cfg.MCP.Terminals = *m.Terminals
	}
	if a := fc.Agent; a != nil && a.Command != nil {
		cmd := *a.Command
		if len(cmd) == 0 {
			return l.errf("agent.command", "must name a program (an empty array)")
		}
		for i, w := range cmd {
			if strings.TrimSpace(w) == "" {
				return l.errf(fmt.Sprintf("agent.command[%d]", i), "word %d is empty", i+1)
			}
		}
		cfg.Agent.Command = slices.Clone(cmd)
	}
	if a := fc.Agent; a != nil && a.Mode != nil {
		if strings.TrimSpace(*a.Mode) == "" {
			return l.errf("agent.mode", `must be "asking", "agent" or a mode id of the agent (it is empty)`)
		}
		cfg.Agent.Mode = *a.Mode
	}
	if p := fc.Policy; p != nil {
		if p.Roots != nil {
			roots, err := l.roots(*p.Roots)
			if err != nil {
				return err
			}
			if !slices.ContainsFunc(roots, func(r string) bool { return within(r, l.cwd) }) {
				return l.errAt(l.idx.at("policy.roots"), "policy.roots", "the session cwd %s is outside every root; add it (or a parent) or start acpterm inside a root", l.cwd)
			}
			cfg.Policy.Roots = roots
		}
		if p.Unmatched != nil {
			v, err := l.enum("policy.unmatched", p.Unmatched, verdicts)
			if err != nil {
				return err
			}
			cfg.Policy.Unmatched = v
		}
		if err := l.policyTables(cfg, p); err != nil {
			return err
		}
	}
	if err := l.sandbox(cfg, fc.Sandbox); err != nil {
		return err
	}
	if u := fc.UI; u != nil {
		if u.Theme != nil {
			v, err := l.enum("ui.theme", u.Theme, themes)
			if err != nil {
				return err
			}
			cfg.UI.Theme = v
		}
		if u.Notify != nil {
			seen := []string{}
			for i, c := range *u.Notify {
				if !slices.Contains(NotifyChannels, c) {
					return l.errf(fmt.Sprintf("ui.notify[%d]", i), "must be %s, not %q", quoteList(NotifyChannels), c)
				}
				if !slices.Contains(seen, c) {
					seen = append(seen, c)
				}
			}
			cfg.UI.Notify = seen // replaces the default list (it is a choice, not a rule set)
		}
		if u.NotifyAfter != nil {
			d, err := time.ParseDuration(*u.NotifyAfter)
			if err != nil || d < 0 {
				return l.errf("ui.notify_after", "must be a duration such as \"10s\" or \"0s\" (every turn), not %q", *u.NotifyAfter)
			}
			cfg.UI.NotifyAfter = d
		}
		if u.Mouse != nil {
			cfg.UI.Mouse = *u.Mouse
		}
		if u.Keys != nil {
			if err := l.keys(cfg, u.Keys); err != nil {
				return err
			}
		}
	}
	return nil
}

// policyTables applies the [policy] keys the user file and a project file share (the scalars,
// [policy.commands], [policy.env], [policy.fs]); each checks what the file may set (a project
// file only tightens: l.project).
func (l *loader) policyTables(cfg *Config, p *filePolicy) error {
	if err := l.scalars(cfg, p); err != nil {
		return err
	}
	if err := l.commands(cfg, p.Commands); err != nil {
		return err
	}
	if e := p.Env; e != nil {
		if err := l.envList(cfg, "policy.env.deny", e.Deny, &cfg.Policy.Env.Deny); err != nil {
			return err
		}
		if err := l.envList(cfg, "policy.env.allow", e.Allow, &cfg.Policy.Env.Allow); err != nil {
			return err
		}
	}
	if err := l.fs(cfg, p.FS); err != nil {
		return err
	}
	return l.network(cfg, p.Network)
}

// scalars validates output_byte_limit, kill_grace and max_terminals. In a project file each
// may only go down.
func (l *loader) scalars(cfg *Config, p *filePolicy) error {
	if p.OutputByteLimit != nil {
		n := *p.OutputByteLimit
		if n <= 0 || n > MaxOutputByteLimit {
			return l.errf("policy.output_byte_limit", "must be between 1 and %d bytes, not %d", MaxOutputByteLimit, n)
		}
		if l.project && int(n) > cfg.Policy.OutputByteLimit {
			return l.widen("policy.output_byte_limit", fmt.Sprintf("%d is larger than the current limit %d", n, cfg.Policy.OutputByteLimit))
		}
		cfg.Policy.OutputByteLimit = int(n)
	}
	if p.KillGrace != nil {
		d, err := time.ParseDuration(*p.KillGrace)
		if err != nil {
			return l.errf("policy.kill_grace", "must be a duration such as \"2s\" or \"500ms\", not %q", *p.KillGrace)
		}
		if d <= 0 || d > MaxKillGrace {
			return l.errf("policy.kill_grace", "must be more than 0s and at most %s, not %s", MaxKillGrace, d)
		}
		if l.project && d > cfg.Policy.KillGrace {
			return l.widen("policy.kill_grace", fmt.Sprintf("%s is longer than the current grace %s", d, cfg.Policy.KillGrace))
		}
		cfg.Policy.KillGrace = d
	}
	if p.MaxTerminals != nil {
		n := *p.MaxTerminals
		if n < 1 || n > MaxMaxTerminals {
			return l.errf("policy.max_terminals", "must be between 1 and %d, not %d", MaxMaxTerminals, n)
		}
		if l.project && int(n) > cfg.Policy.MaxTerminals {
			return l.widen("policy.max_terminals", fmt.Sprintf("%d is more than the current %d", n, cfg.Policy.MaxTerminals))
		}
		cfg.Policy.MaxTerminals = int(n)
	}
	return nil
}

// roots expands, resolves and checks each root (absolute, existing directory).
func (l *loader) roots(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, l.errf("policy.roots", "must list at least one directory (an empty array)")
	}
	var out []string
	for i, r := range in {
		key := fmt.Sprintf("policy.roots[%d]", i)
		p, err := expandPath(r, l.getenv)
		if err != nil {
			return nil, l.errf(key, "%s", err)
		}
		if !filepath.IsAbs(p) {
			return nil, l.errf(key, "%q is not an absolute path (after ~ and $VAR expansion)", r)
		}
		real, err := filepath.EvalSymlinks(filepath.Clean(p))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, l.errf(key, "root %q does not exist", p)
			}
			return nil, l.errf(key, "root %q: %s", p, errText(err))
		}
		st, err := os.Stat(real)
		if err != nil {
			return nil, l.errf(key, "root %q: %s", p, errText(err))
		}
		if !st.IsDir() {
			return nil, l.errf(key, "root %q is not a directory", p)
		}
		if !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out, nil
}

// commands validates and appends [policy.commands] lists. A project file may not add allow.
func (l *loader) commands(cfg *Config, c *fileCommands) error {
	if c == nil {
		return nil
	}
	lists := []struct {
		name string
		in   *[]string
		dst  *[]string
	}{
		{"allow", c.Allow, &cfg.Policy.Commands.Allow},
		{"ask", c.Ask, &cfg.Policy.Commands.Ask},
		{"deny", c.Deny, &cfg.Policy.Commands.Deny},
	}
	for _, ls := range lists {
		if ls.in == nil {
			continue
		}
		key := "policy.commands." + ls.name
		if l.project && ls.name == "allow" && len(*ls.in) > 0 {
			return l.widen(key, "allow rules cannot be added")
		}
		for i, s := range *ls.in {
			if err := checkPrefix(s); err != "" {
				return l.errf(fmt.Sprintf("%s[%d]", key, i), "%s", err)
			}
			s = strings.Join(strings.Fields(s), " ")
			if !slices.Contains(*ls.dst, s) {
				*ls.dst = append(*ls.dst, s)
			}
		}
	}
	// An allow rule that can never take effect is an error, not a silent no-op: one covered by
	// a deny or ask rule (allow = ["sudo ls"]). A project file cannot add allow rules.
	if c.Allow != nil && !l.project {
		for i, s := range *c.Allow {
			key := fmt.Sprintf("policy.commands.allow[%d]", i)
			if msg := shadowedAllow(s, cfg.Policy.Commands); msg != "" {
				return l.errf(key, "%s", msg)
			}
		}
	}
	return nil
}

// checkPrefix validates a command prefix: one simple command made of static words (no
// operators, redirects, assignments, expansions or substitutions). It returns "" when fine.
func checkPrefix(s string) string {
	if strings.TrimSpace(s) == "" {
		return "empty command prefix"
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return fmt.Sprintf("command prefix %q contains a control character", s)
		}
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(s), "")
	if err != nil {
		return fmt.Sprintf("command prefix %q does not parse as shell words: %v", s, err)
	}
	bad := fmt.Sprintf("command prefix %q must be plain words (no operators, redirects, assignments, $ or globs)", s)
	if len(f.Stmts) != 1 {
		return bad
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Background || st.Negated || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return bad
	}
	for _, w := range call.Args {
		for _, part := range w.Parts {
			switch x := part.(type) {
			case *syntax.Lit:
				if strings.ContainsAny(x.Value, "*?[") {
					return bad
				}
			case *syntax.SglQuoted:
				if x.Dollar {
					return bad
				}
			case *syntax.DblQuoted:
				for _, q := range x.Parts {
					if _, ok := q.(*syntax.Lit); !ok {
						return bad
					}
				}
			default:
				return bad
			}
		}
	}
	return ""
}

// envList validates env-name globs and appends them. A project file may not add allow.
func (l *loader) envList(cfg *Config, key string, in *[]string, dst *[]string) error {
	if in == nil {
		return nil
	}
	if l.project && strings.HasSuffix(key, ".allow") && len(*in) > 0 {
		return l.widen(key, "variables the agent may set cannot be added")
	}
	for i, g := range *in {
		k := fmt.Sprintf("%s[%d]", key, i)
		if g == "" {
			return l.errf(k, "empty variable name")
		}
		for _, r := range g {
			if !(r == '_' || r == '*' || r == '?' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
				return l.errf(k, "%q is not a variable name or glob (letters, digits, _, * and ?)", g)
			}
		}
		if strings.HasSuffix(key, ".allow") && !l.project {
			// An allowed name the deny list covers stays denied: say so instead of ignoring it.
			if msg := shadowedEnvAllow(g, cfg.Policy.Env.Deny); msg != "" {
				return l.errf(k, "%s", msg)
			}
			if msg := policy.EnvAllowProblem(g); msg != "" {
				return l.errf(k, "%s", msg)
			}
		}
		if !slices.Contains(*dst, g) {
			*dst = append(*dst, g)
		}
	}
	return nil
}

// fs validates [policy.fs]. In a project file read/write may only get stricter.
func (l *loader) fs(cfg *Config, f *fileFS) error {
	if f == nil {
		return nil
	}
	for _, v := range []struct {
		key string
		in  *string
		dst *string
	}{{"policy.fs.read", f.Read, &cfg.Policy.FS.Read}, {"policy.fs.write", f.Write, &cfg.Policy.FS.Write}} {
		if v.in == nil {
			continue
		}
		got, err := l.enum(v.key, v.in, verdicts)
		if err != nil {
			return err
		}
		if l.project && verdictRank(got) < verdictRank(*v.dst) {
			return l.widen(v.key, fmt.Sprintf("%q is looser than the current %q", got, *v.dst))
		}
		*v.dst = got
	}
	for _, g := range []struct {
		key string
		in  *[]string
		dst *[]string
	}{{"policy.fs.deny_read", f.DenyRead, &cfg.Policy.FS.DenyRead}, {"policy.fs.deny_write", f.DenyWrite, &cfg.Policy.FS.DenyWrite}} {
		if g.in == nil {
			continue
		}
		for i, s := range *g.in {
			k := fmt.Sprintf("%s[%d]", g.key, i)
			if strings.TrimSpace(s) == "" {
				return l.errf(k, "empty glob")
			}
			p, err := expandPath(s, l.getenv)
			if err != nil {
				return l.errf(k, "%s", err)
			}
			if !doublestar.ValidatePattern(filepath.ToSlash(p)) {
				return l.errf(k, "%q is not a valid glob", s)
			}
			if !slices.Contains(*g.dst, p) {
				*g.dst = append(*g.dst, p)
			}
		}
	}
	return nil
}

// network validates [policy.network]: host rules (ParseHostRule) appended normalised, and
// unmatched. A project file may add deny rules and make unmatched stricter, nothing else. A
// user file's allow rule that a deny rule covers is an error (it could never take effect).
func (l *loader) network(cfg *Config, n *fileNetwork) error {
	if n == nil {
		return nil
	}
	if n.Unmatched != nil {
		v, err := l.enum("policy.network.unmatched", n.Unmatched, verdicts)
		if err != nil {
			return err
		}
		if l.project && verdictRank(v) < verdictRank(cfg.Policy.Network.Unmatched) {
			return l.widen("policy.network.unmatched", fmt.Sprintf("%q is looser than the current %q", v, cfg.Policy.Network.Unmatched))
		}
		cfg.Policy.Network.Unmatched = v
	}
	if n.AgentAllow != nil {
		if l.project {
			return l.widen("policy.network.agent_allow", "the agent's own hosts cannot be set")
		}
		out := []string{}
		for i, s := range *n.AgentAllow {
			r, err := policy.ParseHostRule(s)
			if err != nil {
				return l.errf(fmt.Sprintf("policy.network.agent_allow[%d]", i), "%s", err)
			}
			if !slices.Contains(out, r.String()) {
				out = append(out, r.String())
			}
		}
		cfg.Policy.Network.AgentAllow = out
	}
	for _, ls := range []struct {
		name string
		in   *[]string
		dst  *[]string
	}{{"deny", n.Deny, &cfg.Policy.Network.Deny}, {"allow", n.Allow, &cfg.Policy.Network.Allow}} {
		if ls.in == nil {
			continue
		}
		key := "policy.network." + ls.name
		if l.project && ls.name == "allow" && len(*ls.in) > 0 {
			return l.widen(key, "allow rules cannot be added")
		}
		for i, s := range *ls.in {
			k := fmt.Sprintf("%s[%d]", key, i)
			r, err := policy.ParseHostRule(s)
			if err != nil {
				return l.errf(k, "%s", err)
			}
			if ls.name == "allow" {
				for _, d := range cfg.Policy.Network.Deny {
					if dr, err := policy.ParseHostRule(d); err == nil && dr.Covers(r) {
						return l.errf(k, "allow rule %q has no effect: deny rule %q covers it (deny > allow); remove it", s, d)
					}
				}
			}
			if !slices.Contains(*ls.dst, r.String()) {
				*ls.dst = append(*ls.dst, r.String())
			}
		}
	}
	return nil
}

// keys validates [ui.keys]: known actions, non-empty lists of parsable key names.
func (l *loader) keys(cfg *Config, keys map[string][]string) error {
	names := make([]string, 0, len(keys))
	for a := range keys {
		names = append(names, a)
	}
	// Report in document order.
	slices.SortFunc(names, func(a, b string) int {
		pa, pb := l.idx.at("ui.keys."+a), l.idx.at("ui.keys."+b)
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		return strings.Compare(a, b)
	})
	if cfg.UI.Keys == nil {
		cfg.UI.Keys = map[string][]string{}
	}
	boundTo := map[string]string{} // key → action, within this table
	for _, a := range names {
		key := "ui.keys." + a
		if !slices.Contains(keyActions, a) {
			return l.errf(key, "unknown action %q (actions: %s)", a, strings.Join(keyActions, ", "))
		}
		if len(keys[a]) == 0 {
			return l.errf(key, "must list at least one key (an empty array)")
		}
		for i, k := range keys[a] {
			if err := CheckKey(k); err != nil {
				return l.errf(fmt.Sprintf("%s[%d]", key, i), "%s", err)
			}
			if other, dup := boundTo[k]; dup && other != a {
				return l.errf(fmt.Sprintf("%s[%d]", key, i), "%q is already bound to %s", k, other)
			}
			boundTo[k] = a
		}
		cfg.UI.Keys[a] = slices.Clone(keys[a])
	}
	if a, k, other, clash := KeyClash(cfg.UI.Keys); clash {
		return l.errf(fmt.Sprintf("ui.keys.%s[%d]", a, slices.Index(cfg.UI.Keys[a], k)), "%q is already bound to %s by default (rebind %s too, or choose another key)", k, other, other)
	}
	return nil
}

// tighten applies a project file: only keys that cannot widen the policy are accepted.
func (l *loader) tighten(cfg *Config, fc *fileConfig) error {
	if fc.Agent != nil {
		return l.widen("agent", "[agent] cannot be set (it chooses the program acpterm runs)")
	}
	if fc.UI != nil {
		return l.widen("ui", "[ui] cannot be set (key bindings decide what a keypress approves)")
	}
	if m := fc.MCP; m != nil && m.Terminals != nil {
		if *m.Terminals && !cfg.MCP.Terminals {
			return l.widen("mcp.terminals", "true cannot turn back on what the user config turned off")
		}
		cfg.MCP.Terminals = *m.Terminals
	}
	if err := l.sandbox(cfg, fc.Sandbox); err != nil {
		return err
	}
	p := fc.Policy
	if p == nil {
		return nil
	}
	if p.Roots != nil {
		return l.widen("policy.roots", "roots cannot be set")
	}
	if p.Unmatched != nil {
		v, err := l.enum("policy.unmatched", p.Unmatched, verdicts)
		if err != nil {
			return err
		}
		if verdictRank(v) < verdictRank(cfg.Policy.Unmatched) {
			return l.widen("policy.unmatched", fmt.Sprintf("%q is looser than the current %q", v, cfg.Policy.Unmatched))
		}
		cfg.Policy.Unmatched = v
	}
	return l.policyTables(cfg, p)
}

// expandTilde expands a leading "~" or "~/" with $HOME.
func expandTilde(p string, getenv func(string) string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h := home(getenv); h != "" {
			return h + p[1:]
		}
	}
	return p
}

// expandPath expands a leading ~ and $VAR / ${VAR} references. An unset or empty variable is
// an error (never a silent default); "$$" is a literal "$".
func expandPath(p string, getenv func(string) string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		h := home(getenv)
		if h == "" {
			return "", fmt.Errorf("cannot expand ~ in %q: HOME is not set", p)
		}
		p = h + p[1:]
	} else if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%q: only ~ and ~/ are expanded (not ~user)", p)
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '$' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(p) && p[i+1] == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		var name string
		if i+1 < len(p) && p[i+1] == '{' {
			end := strings.IndexByte(p[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("%q: unterminated ${", p)
			}
			name = p[i+2 : i+2+end]
			i += 2 + end
		} else {
			j := i + 1
			for j < len(p) && (p[j] == '_' || p[j] >= 'A' && p[j] <= 'Z' || p[j] >= 'a' && p[j] <= 'z' || p[j] >= '0' && p[j] <= '9') {
				j++
			}
			name = p[i+1 : j]
			i = j - 1
		}
		if !validVarName(name) {
			return "", fmt.Errorf("%q: bad variable reference (write $$ for a literal $)", p)
		}
		v := getenv(name)
		if v == "" {
			return "", fmt.Errorf("%q: $%s is not set", p, name)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

func validVarName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

var (
	sandboxModes    = []string{"off", "auto", "required"}
	sandboxNetworks = []string{"on", "proxy", "off"} // loosest first
)

// sandbox validates and applies [sandbox]. A project file may only make it stricter: a
// stricter mode, a stricter network (on < proxy < off), agent = true; never agent_write.
func (l *loader) sandbox(cfg *Config, s *fileSandbox) error {
	if s == nil {
		return nil
	}
	if s.Mode != nil {
		v, err := l.enum("sandbox.mode", s.Mode, sandboxModes)
		if err != nil {
			return err
		}
		if l.project && slices.Index(sandboxModes, v) < slices.Index(sandboxModes, cfg.Sandbox.Mode) {
			return l.widen("sandbox.mode", fmt.Sprintf("%q is looser than the current %q", v, cfg.Sandbox.Mode))
		}
		cfg.Sandbox.Mode = v
	}
	if s.Network != nil {
		v, err := l.enum("sandbox.network", s.Network, sandboxNetworks)
		if err != nil {
			return err
		}
		if l.project && slices.Index(sandboxNetworks, v) < slices.Index(sandboxNetworks, cfg.Sandbox.Network) {
			return l.widen("sandbox.network", fmt.Sprintf("%q is looser than the current %q", v, cfg.Sandbox.Network))
		}
		cfg.Sandbox.Network = v
	}
	if s.Agent != nil {
		if l.project && !*s.Agent && cfg.Sandbox.Agent {
			return l.widen("sandbox.agent", "false is looser than the current true")
		}
		cfg.Sandbox.Agent = *s.Agent
	}
	if s.AgentWrite != nil {
		if l.project && len(*s.AgentWrite) > 0 {
			return l.widen("sandbox.agent_write", "it cannot add writable paths")
		}
		for i, w := range *s.AgentWrite {
			key := fmt.Sprintf("sandbox.agent_write[%d]", i)
			p, err := expandPath(w, l.getenv)
			if err != nil {
				return l.errf(key, "%s", err)
			}
			if !filepath.IsAbs(p) {
				return l.errf(key, "%q is not an absolute path (after ~ and $VAR expansion)", w)
			}
			p = filepath.Clean(p)
			if p == "/" {
				return l.errf(key, "%q would make the whole file system writable", w)
			}
			if !slices.Contains(cfg.Sandbox.AgentWrite, p) {
				cfg.Sandbox.AgentWrite = append(cfg.Sandbox.AgentWrite, p)
			}
		}
	}
	return nil
}
