package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeListsProtectedNames: the README's security model names every built-in project
// file protected in the roots (ProjectFiles) and every masked secret directory (SecretDirs),
// so that what it promises is what the code protects.
func TestReadmeListsProtectedNames(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n## Security model\n")
	if i < 0 {
		t.Fatal("README.md has no Security model section")
	}
	s = s[i+1:]
	if j := strings.Index(s[1:], "\n## "); j >= 0 {
		s = s[:j+1]
	}
	for _, f := range ProjectFiles {
		if !strings.Contains(s, "`"+f+"`") {
			t.Errorf("the security model does not name `%s` (ProjectFiles)", f)
		}
	}
	for _, d := range SecretDirs {
		if !strings.Contains(s, "`~/"+d+"`") {
			t.Errorf("the security model does not name `~/%s` (SecretDirs)", d)
		}
	}
}
