//go:build benchui

package ui

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/acpterm/acpterm/acpclient"
	"github.com/acpterm/acpterm/config"
	"github.com/acpterm/acpterm/terminals"
)

// TestBenchUIProgram is the program scripts/bench-ui.sh drives inside tmux (build with
// `go test -c -tags benchui`, run the binary on a terminal). It shows BENCHUI_FLOODS panes that
// each loop `cat BENCHUI_FILE` and, last and focused, a pane running `cat` that echoes what the
// script types (with BENCHUI_FOCUS=0 the keys go to the prompt editor instead). It runs until
// ctrl+] then ctrl+q. No agent: the fake records nothing useful.
func TestBenchUIProgram(t *testing.T) {
	floods, _ := strconv.Atoi(os.Getenv("BENCHUI_FLOODS"))
	file := os.Getenv("BENCHUI_FILE")
	if file == "" && floods > 0 {
		t.Fatal("BENCHUI_FILE is required with BENCHUI_FLOODS")
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	wake := NewWake()
	mgr := terminals.NewManager(terminals.ManagerOptions{OnChange: wake.Notify})
	defer mgr.Close()
	m := newModel(deps{agent: &fakeAgent{}, terms: managerTerms{mgr}, cfg: config.Default(cwd), agentName: "bench"})
	env := append(os.Environ(), "TERM=xterm-256color")
	start := func(label string, o terminals.StartOptions) {
		o.Dir, o.Env, o.Label = cwd, env, label
		term, err := mgr.Start(o)
		if err != nil {
			t.Fatal(err)
		}
		m.handleEvent(acpclient.TerminalStarted{ID: term.ID(), Label: label, Cwd: cwd})
	}
	for i := 0; i < floods; i++ {
		start("flood "+strconv.Itoa(i+1), terminals.StartOptions{ShellLine: "while :; do cat '" + file + "'; done"})
	}
	start("cat", terminals.StartOptions{Argv: []string{"cat"}})
	m.focused = os.Getenv("BENCHUI_FOCUS") != "0"
	events := make(chan acpclient.Event)
	if _, err := runProgram(context.Background(), m, events, wake, nil, nil); err != nil {
		t.Fatal(err)
	}
}
