package helper

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDepsStayEarly: the package imports nothing that Go would initialise late or that is
// heavy (see the package doc): of the standard library nothing of net (net/http, crypto/tls
// with it) and not path/filepath, and outside it only x/sys/unix, go-landlock, go-seccomp-bpf (and what they
// import) and acpterm's internal/proctree.
func TestDepsStayEarly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}+{{end}}{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	allowed := []string{
		"golang.org/x/sys/unix",
		"github.com/landlock-lsm/go-landlock/",
		"kernel.org/pub/linux/libs/security/libcap/psx", // go-landlock's
		"github.com/elastic/go-seccomp-bpf",
		"github.com/elastic/go-seccomp-bpf/",
		"golang.org/x/net/bpf", // go-seccomp-bpf's: the BPF assembler, no networking
		"github.com/acpterm/acpterm/internal/proctree",
		"github.com/acpterm/acpterm/sandbox/internal/helper",
	}
	var std, other int
	for _, line := range strings.Fields(string(out)) {
		p, nonStd := strings.CutPrefix(line, "+")
		if !nonStd {
			std++
			if p == "net" || strings.HasPrefix(p, "net/") || p == "crypto/tls" || p == "os/exec" {
				t.Errorf("imports %s", p)
			}
			if p == "path/filepath" {
				// Sorted late, and so initialised late: with it the helper waits for some
				// twenty packages more (math/big, x/text/cases, the MCP SDK's JSON …). Its
				// string functions are in package path.
				t.Errorf("imports %s (use package path)", p)
			}
			continue
		}
		other++
		ok := false
		for _, a := range allowed {
			if p == a || strings.HasSuffix(a, "/") && strings.HasPrefix(p, a) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("imports %s, outside the allowed list", p)
		}
	}
	if std == 0 || other < 4 {
		t.Fatalf("go list printed %d standard and %d other packages: %q", std, other, out)
	}
}
