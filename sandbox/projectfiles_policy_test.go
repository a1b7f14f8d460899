package sandbox

import (
	"slices"
	"testing"

	"github.com/acpterm/acpterm/permissions"
)

// TestPolicyKnowsProjectFiles: the policy's write checks refuse exactly the project files the
// sandbox binds read-only, so an unsandboxed agent's fs/write_text_file cannot plant one either.
func TestPolicyKnowsProjectFiles(t *testing.T) {
	if got := permissions.HostRunFiles(); !slices.Equal(got, projectFiles) {
		t.Fatalf("permissions protects %q, the sandbox %q", got, projectFiles)
	}
}
