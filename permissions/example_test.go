package permissions_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpterm/acpterm/permissions"
	"github.com/acpterm/acpterm/permissions/policy"
)

// An engine built from a policy written by hand (no config file): read-only git and ls are
// allowed, rm is denied, anything else is asked about.
func ExampleEngine_DecideCommand() {
	root, err := os.MkdirTemp("", "example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)
	root, _ = filepath.EvalSymlinks(root)
	e, err := permissions.NewEngine(policy.Policy{
		Roots:     []string{root},
		Unmatched: "ask",
		Commands:  policy.Commands{Allow: []string{"git status", "ls"}, Deny: []string{"rm"}},
	}, permissions.EngineOptions{Cwd: root})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range []string{"git status && ls -la", "ls; rm -rf build", "make"} {
		d := e.DecideCommand(permissions.CommandRequest{Command: line})
		fmt.Printf("%-22s %s (%s)\n", line, d.Verdict, d.Rule)
	}
	// Output:
	// git status && ls -la   allow (allow: git status)
	// ls; rm -rf build       deny (deny: rm)
	// make                   ask (runner: make)
}
