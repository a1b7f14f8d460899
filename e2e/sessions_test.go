package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sessionsEnv is an env whose scripted agent keeps sessions (scenario "sessions") in a state file.
func sessionsEnv(t *testing.T, scenario string) *testEnv {
	e := newEnv(t)
	e.extraEnv = append(e.extraEnv, "SCRIPTAGENT_SCENARIO="+scenario, "SCRIPTAGENT_STATE="+filepath.Join(e.root, "agent-sessions.json"))
	return e
}

// firstSession runs one headless session of the scripted agent with prompt and checks it.
func firstSession(t *testing.T, e *testEnv, prompt string) {
	t.Helper()
	r := e.run("--headless", "--cwd", e.project, "--prompt", prompt, "--", scriptAgent(t))
	if r.code != 0 || !strings.HasPrefix(r.stdout, "[session] s1 scriptagent 1.2.3 in "+e.project+"\n") {
		t.Fatalf("first session: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestTUIResumePickerShowsHistory(t *testing.T) {
	e := sessionsEnv(t, "sessions")
	firstSession(t, e, "echo the first answer")
	tm := startTmux(t, e, 160, 48)
	tm.shell("stty -g > " + shellQuote(e.home+"/stty.before"))
	tm.acpterm("--cwd", e.project, "--resume", "--", scriptAgent(t))
	tm.waitFor("Sessions · from the agent")
	tm.waitFor("› echo the first answer")
	tm.waitFor("enter load · f fork · d delete · n new session · esc new session")
	tm.keys("Enter")
	tm.waitFor("session s1 loaded; its history follows")
	tm.waitFor("› echo the first answer") // the replayed prompt…
	tm.waitFor("the first answer")        // …and answer
	tm.waitFor("session s1")              // status bar
	tm.typeText("echo second turn")
	tm.keys("Enter")
	tm.waitFor("second turn")
	// The picker from the key: fork the open session.
	tm.keys("M-r")
	tm.waitFor("(open)")
	tm.keys("f")
	tm.waitFor("session s2: a fork of s1")
	tm.waitFor("session s2")
	// Delete s1 from the picker: select its row, d asks, d again deletes it.
	tm.keys("M-r")
	tm.waitFor("(open)")
	row := regexp.MustCompile(`› .*\bs1\s+│`)
	for range 3 {
		if row.MatchString(tm.capture()) {
			break
		}
		tm.keys("Down")
	}
	tm.waitMatch(row)
	tm.keys("d")
	tm.waitFor("s1  — d again deletes it")
	tm.keys("d")
	tm.waitUntil("s1 gone from the picker", func(scr string) bool {
		return strings.Contains(scr, "s2  (open)") && !regexp.MustCompile(`\bs1\s+│`).MatchString(scr)
	})
	tm.keys("Escape")
	tm.waitGone("Sessions · from the agent")
	quit(t, e, tm, 0)
	log := e.logText(t)
	for _, want := range []string{`line="session/load s1"`, `line="session/fork s1 -> s2"`, `line="session/delete s1"`, `line="session/close s1"`, `line="session/close s2"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s", want)
		}
	}
}

func TestTUIContinueLatest(t *testing.T) {
	e := sessionsEnv(t, "sessions")
	firstSession(t, e, "echo remembered")
	tm := startTmux(t, e, 160, 48)
	tm.shell("stty -g > " + shellQuote(e.home+"/stty.before"))
	tm.acpterm("--cwd", e.project, "--continue", "--", scriptAgent(t))
	tm.waitFor("session s1 loaded; its history follows")
	tm.waitFor("› echo remembered")
	quit(t, e, tm, 0)
}

func TestHeadlessResumeAndContinue(t *testing.T) {
	agent := scriptAgent(t)
	t.Run("resume id", func(t *testing.T) {
		e := sessionsEnv(t, "sessions")
		firstSession(t, e, "echo one")
		r := e.run("--headless", "--cwd", e.project, "--resume", "s1", "--prompt", "echo two", "--", agent)
		want := "[session] s1 scriptagent 1.2.3 in " + e.project + "\n[mode] default\none\n[prompt] echo two\ntwo\n[stop] end_turn\n"
		if r.code != 0 || !strings.Contains(r.stdout, "[prompt] echo two\ntwo\n[stop] end_turn\n") || !strings.Contains(r.stdout, "one") {
			t.Fatalf("exit %d\nstdout:\n%s\nwant like:\n%s\nstderr:\n%s", r.code, r.stdout, want, r.stderr)
		}
	})
	t.Run("continue from acpterm's records", func(t *testing.T) {
		// Scenario "load" can load but not list sessions: acpterm's own record names the latest.
		e := newEnv(t)
		e.extraEnv = append(e.extraEnv, "SCRIPTAGENT_SCENARIO=load")
		r := e.run("--headless", "--cwd", e.project, "--prompt", "echo hi", "--", agent)
		if r.code != 0 {
			t.Fatalf("first: exit %d\n%s", r.code, r.stderr)
		}
		r = e.run("--headless", "--cwd", e.project, "--continue", "--prompt", "echo again", "--", agent)
		if r.code != 0 || !strings.Contains(r.stdout, "old answer") || !strings.Contains(r.stdout, "[prompt] echo again\nagain\n") {
			t.Fatalf("continue: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("agent supports none", func(t *testing.T) {
		e := newEnv(t)
		r := e.run("--headless", "--cwd", e.project, "--resume", "x", "--prompt", "echo p", "--", agent)
		want := `acpterm: start agent "` + agent + `": acpclient: cannot load session "x": the agent supports neither session/load nor session/resume: acpclient: not supported by the agent` + "\n" +
			"the agent's whole stderr is in acpterm's log: " + filepath.Join(e.stateD, "acpterm", "acpterm.log") + "\n"
		if r.code != 1 || r.stderr != want {
			t.Fatalf("exit %d stderr %q\nwant %q", r.code, r.stderr, want)
		}
		r = e.run("--headless", "--cwd", e.project, "--continue", "--prompt", "echo p", "--", agent)
		if r.code != 1 || !strings.Contains(r.stderr, "--continue: no earlier session of") {
			t.Fatalf("continue: exit %d stderr %q", r.code, r.stderr)
		}
	})
}
