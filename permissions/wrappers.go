package permissions

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/acpterm/acpterm/permissions/programs"
)

// This file holds the shell walk's handlers for programs that run other programs: wrappers that
// are peeled (env, timeout, nice, nohup, xargs, find -exec, watch, sudo …) and shells whose -c
// scripts are parsed in their own dialects. Which program is which kind of wrapper, with its
// options, is program knowledge and lives in its spec (package programs, Spec.Wrapper).

// wrapSpec describes a wrapper's command line (programs.WrapOpts: options, then Positional
// words, then a command).
type wrapSpec = programs.WrapOpts

// optVal is one option found while peeling, with its value if it takes one.
type optVal struct {
	name string // "-n", "--signal"
	val  wv
	has  bool
}

// peeled is the result of peelOptions.
type peeled struct {
	cmd  int  // index of the first word of the inner command (len(words) = none)
	dyn  int  // index of a dynamic word met where an option or the command was expected; -1 = none
	stop bool // an option said there is no command (e.g. -p PID)
	opts []optVal
}

// peelOptions parses the options of words[0] per spec.
func peelOptions(words []wv, spec wrapSpec) peeled {
	p := peeled{dyn: -1}
	i := 1
	for i < len(words) {
		w := words[i]
		if w.dyn {
			p.dyn = i
			return p
		}
		s := w.s
		if s == "--" {
			i++
			break
		}
		if strings.HasPrefix(s, "--") {
			name, val, has := strings.Cut(s, "=")
			spelled := name
			if !spec.Long[name] && !spec.StopLong[name] {
				// GNU getopt_long abbreviations (--sig KILL, --split=…): an abbreviation of an
				// option that takes a value is that option. An abbreviation of an option after
				// which there is no command is not trusted to stop: analysing the words after it
				// as a command is only stricter.
				for _, full := range sortedKeys(spec.Long) {
					if longAbbrev(name, full) {
						name = full
						break
					}
				}
			}
			o := optVal{name: name}
			if has {
				o.val, o.has = wv{s: val}, true
			} else if spec.Long[name] && i+1 < len(words) {
				i++
				o.val, o.has = words[i], true
			}
			if spec.StopLong[spelled] {
				p.stop = true
			}
			p.opts = append(p.opts, o)
			i++
			continue
		}
		if len(s) > 1 && s[0] == '-' {
			letters := s[1:]
			for j := 0; j < len(letters); j++ {
				ch := letters[j]
				if strings.IndexByte(spec.Stop, ch) >= 0 {
					p.stop = true
				}
				if strings.IndexByte(spec.Value, ch) >= 0 {
					o := optVal{name: "-" + string(ch), has: true}
					if j+1 < len(letters) {
						o.val = wv{s: letters[j+1:]}
					} else if i+1 < len(words) {
						i++
						o.val = words[i]
					} else {
						o.has = false
					}
					p.opts = append(p.opts, o)
					break
				}
				p.opts = append(p.opts, optVal{name: "-" + string(ch)})
			}
			i++
			continue
		}
		break
	}
	for k := 0; k < spec.Positional && i < len(words); k++ {
		i++
	}
	if i < len(words) && words[i].dyn {
		p.dyn = i
	}
	p.cmd = i
	return p
}

func (p peeled) opt(names ...string) (optVal, bool) {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n || strings.HasPrefix(n, "--") && longAbbrev(o.name, n) {
				return o, true // also an abbreviation (--rep for --replace)
			}
		}
	}
	return optVal{}, false
}

type wrapperFunc func(a *analyzer, words []wv, c actx)

// wrapperSpecs maps a wrapper's basename to its wrapper behaviour (programs.Spec.Wrapper;
// wrapperFor gives the walk's handler for it); shellDialects maps a shell's basename to the
// dialects its -c script is read in, strictest wins. Both are built from programs.All() once.
var wrapperSpecs, shellDialects = wrapperTables()

// wrapperTables builds wrapperSpecs and shellDialects from the program specs.
func wrapperTables() (map[string]*programs.Wrapper, map[string][]syntax.LangVariant) {
	specs := map[string]*programs.Wrapper{}
	dialects := map[string][]syntax.LangVariant{}
	langs := map[string]syntax.LangVariant{"posix": syntax.LangPOSIX, "bash": syntax.LangBash, "zsh": syntax.LangZsh, "ksh": syntax.LangMirBSDKorn}
	for _, spec := range programs.All() {
		w := spec.Wrapper
		if w == nil {
			continue
		}
		for _, n := range spec.Names {
			if w.Kind == programs.Shell {
				for _, d := range w.Dialects {
					dialects[n] = append(dialects[n], langs[d])
				}
				continue
			}
			specs[n] = w
		}
	}
	return specs, dialects
}

// wrapperFor returns the walk's handler for wrapper behaviour w, or nil for a kind the walk
// does not peel as a wrapper (a shell is read by its dialects instead).
func wrapperFor(w *programs.Wrapper) wrapperFunc {
	switch w.Kind {
	case programs.Simple:
		var note *finding
		if w.Note != nil {
			note = &finding{verdict: Ask, rule: w.Note.Rule, reason: w.Note.Reason, construct: w.Note.Construct}
		}
		return simpleWrapper(w.Opts, note)
	case programs.Env:
		return envWrapper
	case programs.Xargs:
		return xargsWrapper
	case programs.FindExec:
		return findWrapper
	case programs.Watch:
		return watchWrapper
	case programs.Time:
		return timeWrapper
	case programs.Busybox:
		return busyboxWrapper
	case programs.Su:
		return suWrapper
	case programs.Opaque:
		return opaqueRunner
	}
	return nil
}

// sortedKeys returns m's keys in order (so abbreviation resolution is deterministic).
func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// simpleWrapper peels a wrapper of the form `wrapper [options] [positional] command…`. note, when
// set, is carried by every leaf run through the wrapper.
func simpleWrapper(spec wrapSpec, note *finding) wrapperFunc {
	return func(a *analyzer, words []wv, c actx) {
		base := path.Base(words[0].s)
		p := peelOptions(words, spec)
		if note != nil {
			n := *note
			n.reason = base + ": " + n.reason
			c = c.withNote(n)
		}
		if p.dyn >= 0 {
			a.dynWrapper(words, p.dyn, c)
			return
		}
		if p.stop || p.cmd >= len(words) {
			a.leaf(words, c) // the wrapper runs no command (e.g. nice, chrt -p PID)
			return
		}
		// sudo/doas accept NAME=VALUE before the command; check them like env assignments.
		i := p.cmd
		if base == "sudo" {
			for i < len(words) && !words[i].dyn && isAssignment(words[i].s) {
				k, v, _ := strings.Cut(words[i].s, "=")
				a.envValue(k, v, true, base+" assignment", true)
				i++
			}
			if i >= len(words) {
				a.leaf(words, c)
				return
			}
		}
		a.run(words[i:], c.wrap(base, wvStrings(words[:i])))
	}
}

// isAssignment reports NAME=VALUE with a valid shell name.
func isAssignment(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	for k, r := range s[:i] {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || k > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// envWrapper peels env: options (-i -0 -u NAME -C DIR -S STRING -v), NAME=VALUE assignments
// (checked against the env deny list), then the command. -S splits its string into words
// ; -C changes the inner command's directory.
func envWrapper(a *analyzer, words []wv, c actx) {
	p := peelOptions(words, wrapSpec{Value: "uCSa", Long: setOf("--unset", "--chdir", "--split-string", "--argv0")})
	if p.dyn >= 0 {
		a.dynWrapper(words, p.dyn, c)
		return
	}
	i := p.cmd
	clear := false
	for i < len(words) && !words[i].dyn && words[i].s == "-" {
		i++ // env - is env -i
		clear = true
	}
	for _, o := range p.opts {
		switch {
		case o.name == "-i" || longAbbrev(o.name, "--ignore-environment"):
			clear = true
		case o.name == "-u" || o.name == "--unset":
			if o.val.dyn {
				a.note(Ask, "env -u", "env -u removes a variable only known at run time from the environment acpterm built")
			} else if o.has {
				a.varName(o.val.s, "env -u") // e.g. GIT_CONFIG_COUNT, which carries safe.bareRepository
			}
		}
	}
	if clear {
		a.note(Ask, "env -i", "env -i runs the command without the environment acpterm built (which sets git's safe.bareRepository=explicit)")
	}
	for i < len(words) && !words[i].dyn && isAssignment(words[i].s) {
		k, v, _ := strings.Cut(words[i].s, "=")
		a.envValue(k, v, true, "env assignment", true)
		i++
	}
	if i < len(words) && words[i].dyn {
		a.dynWrapper(words, i, c)
		return
	}
	inner := words[i:]
	inC := c.wrap("env", wvStrings(words[:i]))
	if o, ok := p.opt("-C", "--chdir"); ok {
		saved := a.cwd
		if o.val.dyn {
			a.cwd = a.cwd.with(nil, true)
		} else {
			a.cd([]wv{o.val})
		}
		defer func() { a.cwd = saved.with(a.cwd.dirs, a.cwd.unknown) }()
	}
	if o, ok := p.opt("-S", "--split-string"); ok {
		inC = inC.withNote(finding{verdict: Ask, rule: "construct: env -S", reason: "env -S splits a string into a command line", construct: "env -S"})
		if o.val.dyn {
			a.leaf(append([]wv{{dyn: true}}, inner...), inC)
			return
		}
		split, ok := splitWords(o.val.s, a)
		if !ok {
			a.leaf(append([]wv{{dyn: true}}, inner...), inC)
			return
		}
		// env -S may itself contain NAME=VALUE words before the program.
		k := 0
		for k < len(split) && !split[k].dyn && isAssignment(split[k].s) {
			name, v, _ := strings.Cut(split[k].s, "=")
			a.envValue(name, v, true, "env -S assignment", true)
			k++
		}
		inner = append(split[k:], inner...)
	}
	if len(inner) == 0 {
		a.leaf(words, c) // env with no command prints the environment
		return
	}
	a.run(inner, inC)
}

// splitWords splits s into words the way a POSIX shell would for a single simple command (used
// for env -S and watch-style strings); ok is false when s holds anything but plain words.
func splitWords(s string, a *analyzer) ([]wv, bool) {
	if _, bad := controlChar(s); bad {
		return nil, false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(s), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Background || st.Negated {
		return nil, false
	}
	out := make([]wv, 0, len(call.Assigns)+len(call.Args))
	c := actx{lang: syntax.LangPOSIX}
	for _, as := range call.Assigns {
		if as.Name == nil || as.Index != nil || as.Array != nil || as.Append || as.Naked {
			return nil, false
		}
		v := ""
		if as.Value != nil {
			var ok bool
			if v, ok = a.static(as.Value, c); !ok {
				return nil, false
			}
		}
		out = append(out, wv{s: as.Name.Value + "=" + v})
	}
	for _, w := range call.Args {
		v, ok := a.static(w, c)
		if !ok {
			return nil, false
		}
		out = append(out, wv{s: v})
	}
	return out, true
}

// xargsWrapper peels xargs: its command gets extra arguments read from stdin, which the policy
// cannot see (an open tail).
func xargsWrapper(a *analyzer, words []wv, c actx) {
	p := peelOptions(words, wrapSpec{Value: "adEILnPs", Long: setOf("--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var")})
	c = c.withNote(finding{verdict: Ask, rule: "construct: xargs", reason: "xargs runs the command with arguments read from input, which cannot be seen in advance", construct: "xargs"})
	if p.dyn >= 0 {
		a.dynWrapper(words, p.dyn, c)
		return
	}
	inner := append([]wv(nil), words[p.cmd:]...)
	if len(inner) == 0 {
		inner = []wv{{s: "echo"}} // xargs with no command runs echo
	}
	if _, ok := p.opt("-I", "--replace", "-i"); ok {
		for k := range inner {
			if k > 0 && !inner[k].dyn && strings.Contains(inner[k].s, "{}") {
				inner[k] = wv{dyn: true}
			}
		}
	}
	inner = append(inner, wv{dyn: true})
	a.run(inner, c.wrap("xargs", wvStrings(words[:p.cmd])))
}

// findWrapper records find itself as a leaf (its own options are checked by the launch table)
// and every -exec/-execdir/-ok/-okdir command as a leaf of its own.
func findWrapper(a *analyzer, words []wv, c actx) {
	a.leaf(words, c)
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w.dyn || !programs.IsFindExecAction(w.s) {
			continue
		}
		j := i + 1
		for j < len(words) && (words[j].dyn || (words[j].s != ";" && words[j].s != "+")) {
			j++
		}
		inner := append([]wv(nil), words[i+1:j]...)
		for k := range inner {
			if !inner[k].dyn && strings.Contains(inner[k].s, "{}") {
				inner[k] = wv{dyn: true}
			}
		}
		inC := c.wrap("find "+w.s, wvStrings(words[:i+1])).withNote(finding{verdict: Ask, rule: "construct: find " + w.s, reason: "find " + w.s + " runs a command for every file found", construct: "find " + w.s})
		if len(inner) > 0 {
			a.run(inner, inC)
		}
		i = j
	}
}

// watchWrapper: watch joins its words and runs them with sh -c (or execs them with -x).
func watchWrapper(a *analyzer, words []wv, c actx) {
	p := peelOptions(words, wrapSpec{Value: "nq", Long: setOf("--interval", "--equexit")})
	c = c.withNote(finding{verdict: Ask, rule: "construct: watch", reason: "watch runs the command repeatedly", construct: "watch"})
	if p.dyn >= 0 {
		a.dynWrapper(words, p.dyn, c)
		return
	}
	if p.cmd >= len(words) {
		a.leaf(words, c)
		return
	}
	inC := c.wrap("watch", wvStrings(words[:p.cmd]))
	if _, ok := p.opt("-x", "--exec"); ok {
		a.run(words[p.cmd:], inC)
		return
	}
	var parts []string
	for _, w := range words[p.cmd:] {
		if w.dyn {
			a.leaf(words[p.cmd:], inC)
			return
		}
		parts = append(parts, w.s)
	}
	inC.lang, inC.langs = syntax.LangPOSIX, shellDialects["sh"]
	a.script(strings.Join(parts, " "), a.deeper(inC.wrap("sh -c", nil), ""))
}

// timeWrapper peels /usr/bin/time; -o FILE writes a file, which is checked like a redirect.
func timeWrapper(a *analyzer, words []wv, c actx) {
	p := peelOptions(words, wrapSpec{Value: "fo", Long: setOf("--format", "--output")})
	if p.dyn >= 0 {
		a.dynWrapper(words, p.dyn, c)
		return
	}
	if o, ok := p.opt("-o", "--output"); ok && o.has {
		if o.val.dyn {
			a.note(Ask, "dynamic redirect", "time -o writes to a file only known at run time")
		} else {
			a.checkPath(o.val.s, true, "time -o "+o.val.s)
		}
	}
	if p.cmd >= len(words) {
		a.leaf(words, c)
		return
	}
	a.run(words[p.cmd:], c.wrap("time", wvStrings(words[:p.cmd])))
}

// busyboxWrapper: `busybox APPLET args` runs the applet.
func busyboxWrapper(a *analyzer, words []wv, c actx) {
	if len(words) < 2 || (!words[1].dyn && strings.HasPrefix(words[1].s, "-")) {
		a.leaf(words, c)
		return
	}
	a.run(words[1:], c.wrap("busybox", wvStrings(words[:1])))
}

// suWrapper: su is privilege escalation; `su -c CMD` runs CMD with the user's shell.
func suWrapper(a *analyzer, words []wv, c actx) {
	note := finding{verdict: Ask, rule: "construct: privilege escalation", reason: "su: runs a shell as another user", construct: "privilege escalation"}
	a.leaf(words, c, note)
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w.dyn {
			continue
		}
		var script *wv
		switch {
		case w.s == "-c" || w.s == "--command":
			if i+1 < len(words) {
				script = &words[i+1]
			}
		case strings.HasPrefix(w.s, "--command="):
			script = &wv{s: strings.TrimPrefix(w.s, "--command=")}
		}
		if script == nil {
			continue
		}
		inC := c.wrap("su -c", wvStrings(words[:i+1])).withNote(note)
		if script.dyn {
			a.leaf([]wv{{dyn: true}}, inC)
		} else {
			inC.lang, inC.langs = syntax.LangPOSIX, shellDialects["sh"]
			a.script(script.s, a.deeper(inC, ""))
		}
		return
	}
}

// opaqueRunner handles programs that run another program with semantics not modelled here
// (strace, chroot, flock, parallel …): the runner is a leaf that is at least ask, and the words
// from the first non-option word on are analysed as a possible command so deny rules still fire.
func opaqueRunner(a *analyzer, words []wv, c actx) {
	base := path.Base(words[0].s)
	note := finding{verdict: Ask, rule: "construct: program runner", reason: base + " runs another program in a way that is not analysed", construct: base}
	a.leaf(words, c, note)
	for i := 1; i < len(words); i++ {
		if words[i].dyn || !strings.HasPrefix(words[i].s, "-") {
			inC := c.wrap(base, wvStrings(words[:i])).withNote(note)
			inC.maybe = true
			a.run(words[i:], inC)
			return
		}
	}
}
