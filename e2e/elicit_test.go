package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpterm/acpterm/internal/tmuxtest"
)

// startScript starts acpterm on the scripted agent in tmux (160x48) and waits for its session.
func startScript(t *testing.T, e *testEnv, args ...string) *tmux {
	t.Helper()
	agent := scriptAgent(t)
	tm := startTmux(t, e, 160, 48)
	tm.shell("stty -g > " + shellQuote(e.home+"/stty.before"))
	tm.acpterm(append(append([]string{"--cwd", e.project}, args...), "--", agent)...)
	tm.waitFor("session sess-1")
	return tm
}

// waitLog waits until acpterm's log holds want (as slog quotes it in a line="…" value).
// answerDialog gives the question dialog the keys: one that arrived while the prompt was being
// typed says "tab answers" and waits for tab.
func answerDialog(tm *tmux) {
	tm.t.Helper()
	scr := tm.waitUntil("the question dialog's key line", func(s string) bool {
		return strings.Contains(s, "tab answers") || strings.Contains(s, "esc cancel")
	})
	if strings.Contains(scr, "tab answers") {
		tm.keys("Tab")
		tm.waitFor("esc cancel")
	}
}

func waitLog(t *testing.T, e *testEnv, want string) string {
	t.Helper()
	want = strings.ReplaceAll(want, `"`, `\"`)
	deadline := time.Now().Add(waitTimeout)
	for {
		l := e.logText(t)
		if strings.Contains(l, want) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("log lacks %q:\n%s", want, l)
		}
		time.Sleep(tmuxtest.PollInterval)
	}
}

func TestTUIElicitationFormAnswered(t *testing.T) {
	e := newEnv(t)
	tm := startScript(t, e)
	tm.typeText("elicit")
	tm.keys("Enter")
	tm.waitFor("Question from the agent: Project setup")
	tm.waitFor("› Project name *  2–20 chars")
	answerDialog(tm)
	// A name that is too short: the dialog says so under the field and sends nothing.
	tm.typeText("X")
	tm.keys("Enter")
	tm.waitFor("✗ at least 2 characters (has 1)")
	tm.waitFor("✗ required") // email and tags
	tm.keys("BSpace")
	tm.typeText("demo-app")
	tm.keys("Tab")
	tm.typeText("ann@example.com")
	tm.keys("Tab", "Tab") // replicas keeps its default 2
	tm.typeText("0.5")
	tm.keys("Tab", "Left")             // color: blue (default) → red
	tm.keys("Tab", "Space")            // tags: fast
	tm.keys("Right", "Right", "Space") // small
	tm.keys("Tab", "Space")            // agree
	tm.keys("Tab")
	tm.typeText("tok-123")
	tm.waitFor("[•••••••")
	if strings.Contains(tm.capture(), "tok-123") {
		t.Fatalf("the API token is shown:\n%s", tm.capture())
	}
	tm.keys("Enter")
	tm.waitFor("elicitation accept")
	tm.waitFor("Please fill in the elicit form — question accept: name, email, replicas, ratio, color, tags, agree, api_token")
	// What the agent received, exactly (its stderr is in acpterm's log).
	waitLog(t, e, `elicitation response: {"id":"raw-1-4f1c2d","jsonrpc":"2.0","result":{"action":"accept","content":{"agree":true,"api_token":"tok-123","color":"red","email":"ann@example.com","name":"demo-app","ratio":0.5,"replicas":2,"tags":["fast","small"]}}}`)
	quit(t, e, tm, 0)
	// The audit log names the fields, never the values.
	audit := readAudit(t, e)
	if !strings.Contains(audit, `"kind":"elicitation"`) || !strings.Contains(audit, `"fields":["name","email","replicas","ratio","color","tags","agree","api_token"]`) ||
		strings.Contains(audit, "tok-123") || strings.Contains(audit, "demo-app") {
		t.Fatalf("audit log:\n%s", audit)
	}
}

func TestTUIElicitationDeclined(t *testing.T) {
	e := newEnv(t)
	tm := startScript(t, e)
	tm.typeText("elicitask")
	tm.keys("Enter")
	tm.waitFor("Which color should the file be?")
	tm.waitFor("( ) Red  ( ) Blue")
	answerDialog(tm)
	tm.keys("C-d")
	tm.waitFor("elicitation decline")
	tm.waitGone("Question from the agent")
	waitLog(t, e, `"result":{"action":"decline"}`)
	quit(t, e, tm, 0)
}

func TestHeadlessElicitationAnswers(t *testing.T) {
	agent := scriptAgent(t)
	t.Run("answered", func(t *testing.T) {
		e := newEnv(t)
		r := e.run("--headless", "--cwd", e.project, "--answer", "q1=blue", "--prompt", "elicitask", "--", agent)
		if r.code != 0 {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		want := `[prompt] elicitask
[elicitation] form "Please fill in the elicitask form": q1*
[elicitation] → accept: q1 (--answer)
elicitation accept {"q1":"Blue"}
[stop] end_turn
`
		if !strings.HasSuffix(r.stdout, want) {
			t.Fatalf("stdout:\n%s\nwant it to end with:\n%s", r.stdout, want)
		}
	})
	t.Run("declined", func(t *testing.T) {
		e := newEnv(t)
		r := e.run("--headless", "--cwd", e.project, "--prompt", "elicitask", "--", agent)
		if r.code != 0 || !strings.Contains(r.stdout, "[elicitation] → decline (headless: no --answer)\nelicitation decline\n") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("bad answer", func(t *testing.T) {
		e := newEnv(t)
		r := e.run("--headless", "--cwd", e.project, "--answer", "q1=green", "--prompt", "elicitask", "--", agent)
		wantErr := `acpterm: an --answer does not fit the agent's question: invalid answer: q1: --answer q1=green: "green" is not one of: Red, Blue` + "\n"
		if r.code != 2 || r.stderr != wantErr || !strings.Contains(r.stdout, "[elicitation] → decline (--answer)\nelicitation decline\n") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("not key=value", func(t *testing.T) {
		e := newEnv(t)
		r := e.run("--headless", "--cwd", e.project, "--answer", "blue", "--prompt", "elicitask", "--", agent)
		if r.code != 2 || !strings.Contains(r.stderr, `--answer "blue": must be KEY=VALUE`) {
			t.Fatalf("exit %d stderr %q", r.code, r.stderr)
		}
	})
}

func TestTUIElicitationURLOpened(t *testing.T) {
	e := newEnv(t)
	opened := filepath.Join(e.root, "opened.txt")
	browser := filepath.Join(e.root, "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" > "+shellQuote(opened)+".tmp && mv "+shellQuote(opened)+".tmp "+shellQuote(opened)+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.extraEnv = append(e.extraEnv, "BROWSER="+browser)
	tm := startScript(t, e)
	tm.typeText("elicurl https://login.example.com/device?code=AB-12")
	tm.keys("Enter")
	tm.waitFor("Site: login.example.com")
	tm.waitFor("URL:  https://login.example.com/device?code=AB-12")
	answerDialog(tm)
	tm.keys("o")
	tm.waitFor("elicitation accept")
	tm.waitFor("the agent reports that el-1 is done")
	tm.waitFor("opened https://login.example.com/device?code=AB-12 in the browser")
	b, err := os.ReadFile(opened)
	if err != nil || string(b) != "https://login.example.com/device?code=AB-12\n" {
		t.Fatalf("the browser got %q (%v)", b, err)
	}
	quit(t, e, tm, 0)
}
