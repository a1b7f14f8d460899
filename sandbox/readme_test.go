package sandbox

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeListsProtectedNames: the README's security model names every built-in project
// file protected in the roots (projectFiles) and every masked secret path (secretDirs), and
// its list of secret stores names no other, so that what it promises is what the code protects.
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
	for _, f := range projectFiles {
		if !strings.Contains(s, "`"+f+"`") {
			t.Errorf("the security model does not name `%s` (projectFiles)", f)
		}
	}
	for _, d := range secretDirs {
		if !strings.Contains(s, "`~/"+d+"`") {
			t.Errorf("the security model does not name `~/%s` (secretDirs)", d)
		}
	}
	// And its list of secret stores names nothing the code does not mask.
	i = strings.Index(s, "\n- The secret stores a sandboxed command cannot read")
	if i < 0 {
		t.Fatal("the security model has no list of the secret stores")
	}
	list := s[i+1:]
	if j := strings.Index(list, "\n- "); j >= 0 {
		list = list[:j]
	}
	for _, m := range regexp.MustCompile("`~/([^`]+)`").FindAllStringSubmatch(list, -1) {
		if !slices.Contains(secretDirs, m[1]) {
			t.Errorf("the security model lists `~/%s` as masked, but secretDirs does not hold it", m[1])
		}
	}
}
