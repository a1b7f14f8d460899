package permissions

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/permissions/policy"
)

// recorderPrelude defines the function every leaf's program is replaced by: it writes its
// argument count and arguments, NUL-terminated, to fd 3.
const recorderPrelude = "rec() { printf '%s\\0' \"$#\" \"$@\" >&3; }\n"

// differentialScript returns the script with "rec " inserted before the first word of every
// simple command, when the script is in the differential domain: it parses as bash, has no
// control characters, and is made only of simple commands (no assignments, redirects, negation or
// background) joined by newlines, ';', '&&' and '|' ('||' would skip commands once rec
// succeeds). ok is false otherwise.
func differentialScript(script string, lang syntax.LangVariant) (string, int, bool) {
	if _, bad := controlChar(script); bad || strings.IndexByte(script, 0) >= 0 {
		return "", 0, false
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(script), "")
	if err != nil {
		return "", 0, false
	}
	var offsets []int
	ok := true
	var walk func(s *syntax.Stmt)
	walk = func(s *syntax.Stmt) {
		if s == nil || len(s.Redirs) > 0 || s.Background || s.Coprocess || s.Disown || s.Negated {
			ok = false
			return
		}
		switch x := s.Cmd.(type) {
		case *syntax.CallExpr:
			if len(x.Assigns) > 0 || len(x.Args) == 0 {
				ok = false
				return
			}
			offsets = append(offsets, int(x.Args[0].Pos().Offset()))
		case *syntax.BinaryCmd:
			if x.Op != syntax.AndStmt && x.Op != syntax.Pipe {
				ok = false
				return
			}
			walk(x.X)
			walk(x.Y)
		default:
			ok = false
		}
	}
	for _, s := range f.Stmts {
		walk(s)
	}
	if !ok || len(offsets) == 0 {
		return "", 0, false
	}
	out := script
	sort.Sort(sort.Reverse(sort.IntSlice(offsets)))
	for _, o := range offsets {
		out = out[:o] + "rec " + out[o:]
	}
	return out, len(offsets), true
}

// runRecorded runs script under shell (bash or dash) with the recorder and returns each recorded argv joined by
// NUL, sorted (pipeline members run concurrently).
func runRecorded(t *testing.T, shell, script, home string) []string {
	t.Helper()
	rec, err := os.CreateTemp(t.TempDir(), "rec")
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args := []string{"-c", recorderPrelude + script}
	if strings.HasSuffix(shell, "bash") {
		args = append([]string{"--norc", "--noprofile"}, args...)
	}
	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	cmd.Dir = t.TempDir()
	cmd.ExtraFiles = []*os.File{rec}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // the script's own exit status does not matter
	if ctx.Err() != nil {
		t.Fatalf("%s timed out on %q", shell, script)
	}
	data, err := os.ReadFile(rec.Name())
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Split(string(data), "\x00")
	var out []string
	for i := 0; i+1 < len(fields); {
		n, err := strconv.Atoi(fields[i])
		if err != nil || i+1+n > len(fields)-1 {
			t.Fatalf("bad recorder output %q (stderr %q)", data, stderr.String())
		}
		out = append(out, strings.Join(fields[i+1:i+1+n], "\x00"))
		i += 1 + n
	}
	sort.Strings(out)
	return out
}

// FuzzAnalyze feeds scripts to the shell analyser: it must never panic, and whenever it claims
// every leaf of a plain script is static, bash (and dash for POSIX sh) must split the same words (a
// differential test against the real shells). Run: go test -run=^$ -fuzz=FuzzAnalyze -fuzztime=20s ./permissions/
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"ls -la",
		"git status && git diff --stat | head -n 20",
		`echo "a b" 'c' \d $'e\tf' "x\"y" 'it'\''s'`,
		"r\\\nm -rf build",
		`"r"'m' -rf x; \rm -rf y`,
		`find . -\exec rm {} +`,
		"echo ~/x ~ x~",
		"echo a=~/x b:~/y --opt=~/z",
		"[ -d .git ] && echo [a] a[ ] [ab",
		"echo $'\\x41' $\"x\"",
		"a | b && c; d\ne",
		"echo {a,b} *.go $HOME",
		"git status\r; echo x",
		"echo $'\\x41\\u00e9\\101' $\"x\" \"\\$\" '\\'",
		"printf '%s\\n' a\\ b # comment",
		"ls() { rm -rf ~; }; ls",
		"bash -c 'echo $(id)' | sh",
	} {
		f.Add(s)
	}
	p, err := compileCommandPolicy(permsOf(&config.Config{Policy: config.Policy{Unmatched: "ask",
		Commands: config.Commands{Allow: corpusAllow, Deny: corpusDeny}, Env: config.Env{Deny: policy.BuiltinEnvDeny()}}}), nil)
	if err != nil {
		f.Fatal(err)
	}
	home := "/home/fuzz"
	p.runtime(func(k string) string { return map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}[k] })
	shells := map[syntax.LangVariant]string{}
	if bash, err := exec.LookPath("bash"); err == nil {
		shells[syntax.LangBash] = bash
	}
	if dash, err := exec.LookPath("dash"); err == nil {
		shells[syntax.LangPOSIX] = dash
	}
	f.Fuzz(func(t *testing.T, script string) {
		if len(script) > 2048 {
			return
		}
		for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangPOSIX} {
			a := newAnalyzer(p, "/w", home, func(string, bool) *finding { return nil })
			a.script(script, actx{lang: lang})
			for _, l := range a.leaves {
				r := p.decideLeaf(l, p.rt)
				if r.Verdict == "" || r.Rule == "" {
					t.Fatalf("%q: leaf %q has no verdict or rule", script, l.argv)
				}
			}
			shell := shells[lang]
			if shell == "" || a.over != "" || len(a.notes) > 0 {
				continue
			}
			rewritten, n, ok := differentialScript(script, lang)
			if !ok || n != len(a.leaves) {
				continue
			}
			var want []string
			static := true
			for _, l := range a.leaves {
				if len(l.via) > 0 || slices.Contains(l.argv, DynamicWord) {
					static = false // peeled or dynamic: outside the static claim
					break
				}
				want = append(want, strings.Join(l.argv, "\x00"))
			}
			if !static {
				continue
			}
			sort.Strings(want)
			got := runRecorded(t, shell, rewritten, home)
			if !slices.Equal(got, want) {
				t.Errorf("%s: script %q:\nshell    %q\nanalyser %q", langName(lang), script, got, want)
			}
		}
	})
}

// TestDifferentialHarness checks that the FuzzAnalyze oracle really runs: static scripts are in
// the domain and bash records exactly the analyser's words; scripts outside the domain are not.
func TestDifferentialHarness(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed: differential oracle unavailable")
	}
	p := newTestPolicy(t, config.Commands{})
	for _, script := range []string{
		"git status && git diff --stat | head -n 20",
		`echo "a b" 'c' \d $'e\tf' "x\"y" 'it'\''s'`,
		"r\\\nm -rf build; ls ~/x",
		`echo -\exec {} + \{a,b\}`,
	} {
		rewritten, n, ok := differentialScript(script, syntax.LangBash)
		if !ok {
			t.Fatalf("%q: not in the differential domain", script)
		}
		a, _ := analyse(t, p, script, syntax.LangBash)
		if n != len(a.leaves) || len(a.notes) != 0 {
			t.Fatalf("%q: %d commands, %d leaves, notes %v", script, n, len(a.leaves), a.notes)
		}
		var want []string
		for _, l := range a.leaves {
			want = append(want, strings.Join(l.argv, "\x00"))
		}
		sort.Strings(want)
		if got := runRecorded(t, bash, rewritten, "/home/u"); !slices.Equal(got, want) {
			t.Errorf("%q:\nbash     %q\nanalyser %q", script, got, want)
		}
	}
	for _, script := range []string{"a || b", "x=1 ls", "ls > f", "ls &", "if a; then b; fi", "if then"} {
		if _, _, ok := differentialScript(script, syntax.LangBash); ok {
			t.Errorf("%q should be outside the differential domain", script)
		}
	}
}

// TestDifferentialHarnessDash: the oracle also runs POSIX scripts under dash.
func TestDifferentialHarnessDash(t *testing.T) {
	dash, err := exec.LookPath("dash")
	if err != nil {
		t.Skip("dash not installed: POSIX differential oracle unavailable")
	}
	p := newTestPolicy(t, config.Commands{})
	for _, script := range []string{
		"git status && git diff --stat | head -n 20",
		`echo "a b" 'c' \d "x\"y" 'it'\''s' ~/x {a,b}x`,
	} {
		rewritten, n, ok := differentialScript(script, syntax.LangPOSIX)
		if !ok {
			t.Fatalf("%q: not in the differential domain", script)
		}
		a, _ := analyse(t, p, script, syntax.LangPOSIX)
		var want []string
		for _, l := range a.leaves {
			want = append(want, strings.Join(l.argv, "\x00"))
		}
		sort.Strings(want)
		if n != len(a.leaves) {
			t.Fatalf("%q: %d commands, %d leaves", script, n, len(a.leaves))
		}
		got := runRecorded(t, dash, rewritten, "/home/u")
		if slices.Contains(want, DynamicWord) || slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, DynamicWord) }) {
			// {a,b}x is dynamic for the analyser (conservative); compare the static leaves only.
			if len(got) != len(want) {
				t.Errorf("%q: dash recorded %q", script, got)
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\ndash     %q\nanalyser %q", script, got, want)
		}
	}
}
