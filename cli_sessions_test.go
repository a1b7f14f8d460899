package main

import (
	"errors"
	"testing"
)

func TestParseArgsSessions(t *testing.T) {
	for _, c := range []struct {
		name       string
		args       []string
		resume     string
		pick, cont bool
		agent      []string
	}{
		{"picker", []string{"--resume", "--", "agent"}, "", true, false, []string{"agent"}},
		{"picker last", []string{"--resume"}, "", true, false, nil},
		{"picker then flag", []string{"--resume", "--cwd", "/p", "--", "agent"}, "", true, false, []string{"agent"}},
		{"id", []string{"--resume", "abc-1", "--", "agent"}, "abc-1", false, false, []string{"agent"}},
		{"id with =", []string{"--resume=abc-1", "--", "agent"}, "abc-1", false, false, []string{"agent"}},
		{"--resume after -- is the agent's", []string{"--", "agent", "--resume"}, "", false, false, []string{"agent", "--resume"}},
		{"continue", []string{"--continue", "--headless", "--prompt", "x", "--", "agent"}, "", false, true, []string{"agent"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, err := parseArgs(c.args)
			if err != nil {
				t.Fatal(err)
			}
			if o.resume != c.resume || o.pick != c.pick || o.cont != c.cont || len(o.agent) != len(c.agent) {
				t.Fatalf("parsed resume=%q pick=%v continue=%v agent=%q", o.resume, o.pick, o.cont, o.agent)
			}
		})
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--resume", "x", "--continue", "--", "a"}, "--resume and --continue both choose the session; give one"},
		{[]string{"--resume", "--headless", "--prompt", "p", "--", "a"}, "--resume without an id shows a picker, which needs the interactive mode; give the session id, or use --continue"},
	} {
		_, err := parseArgs(c.args)
		if !errors.Is(err, errUsage) || trimUsage(err) != c.want {
			t.Errorf("parseArgs(%q) = %v, want usage error %q", c.args, err, c.want)
		}
	}
}
