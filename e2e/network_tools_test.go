package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/internal/nettest"
)

// The real clients a command uses (curl, git, go, python3's urllib), run by the agent in a
// sandboxed terminal with network "proxy", reach HTTPS "remote" servers on 127.0.0.1 only
// through acpterm's proxy; the test resolver maps their names to the servers, and the
// servers' certificates are verified against the test CA.

// toolsEnv is an env like netEnv's whose commands may run curl, git, go and python3, set up
// to trust the test CA and to fetch Go modules from goproxy.
func toolsEnv(t *testing.T, goproxy, network string) *testEnv {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the sandbox's namespaces need root here (CI runs as root)")
	}
	for _, tool := range []string{"curl", "git", "python3"} {
		nettest.Tool(t, tool)
	}
	e := newEnv(t)
	ca := filepath.Join(e.project, "ca.pem")
	b, err := os.ReadFile(nettest.GetCA(t).File)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ca, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// What a user does: go's settings in its env file (go env -w), git's CA in ~/.gitconfig,
	// curl's on its command line, and SSL_CERT_FILE (Go, Python) allowed in [policy.env].
	gocache := filepath.Join(e.project, ".go")
	e.extraEnv = append(e.extraEnv, "ACPTERM_TEST_RESOLVE=*.acpterm.test=127.0.0.1",
		"GOPATH="+filepath.Join(gocache, "path"), "GOMODCACHE="+filepath.Join(gocache, "mod"), "GOCACHE="+filepath.Join(gocache, "build"))
	goenv := fmt.Sprintf("GOPROXY=%s\nGOSUMDB=off\nGOFLAGS=-modcacherw\nGOTOOLCHAIN=local\nGONOPROXY=\nGOPRIVATE=\n", goproxy)
	for path, body := range map[string]string{
		filepath.Join(e.configD, "go", "env"): goenv,
		filepath.Join(e.home, ".gitconfig"):   "[http]\n\tsslCAInfo = " + ca + "\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.writeConfig(`[sandbox]
mode = "required"
network = "proxy"

[policy.commands]
allow = ["curl", "git", "go", "python3"]

[policy.env]
allow = ["SSL_CERT_FILE"]

[policy.network]
` + network + "\n")
	return e
}

// netRecord is the part of a "net" audit record the tests check.
type netRecord struct {
	TS, Kind, Verdict, By, Rule, Reason, Host, Addr, Terminal, Program, Protocol string
	Port                                                                         int
	Up                                                                           int64 `json:"bytes_up"`
	Down                                                                         int64 `json:"bytes_down"`
}

// netRecords returns the audit log's "net" records.
func netRecords(t *testing.T, e *testEnv) []netRecord {
	t.Helper()
	var out []netRecord
	for _, line := range strings.Split(strings.TrimSpace(readAudit(t, e)), "\n") {
		var r netRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if r.Kind == "net" {
			out = append(out, r)
		}
	}
	return out
}

func TestHeadlessNetworkRealClients(t *testing.T) {
	web := nettest.TLSServer(t, helloHandler())
	git := nettest.NewGitServer(t)
	mods := nettest.NewModuleProxy(t)
	e := toolsEnv(t, fmt.Sprintf("https://goproxy.acpterm.test:%d", nettest.Port(mods)), `allow = ["web.acpterm.test", "git.acpterm.test", "goproxy.acpterm.test"]`)
	goPath := goTool()
	wp := nettest.Port(web)
	line := strings.Join([]string{
		fmt.Sprintf("curl -sS --cacert ca.pem https://web.acpterm.test:%d/curl&& echo && echo curl ok", wp),
		fmt.Sprintf("git ls-remote %s&& echo git ok", git.URL("git.acpterm.test")),
		fmt.Sprintf("SSL_CERT_FILE=ca.pem python3 fetch.py https://web.acpterm.test:%d/py&& echo py ok", wp),
		fmt.Sprintf("SSL_CERT_FILE=ca.pem %s mod download -json %s@%s >/dev/null && echo go ok", goPath, nettest.ModulePath, nettest.ModuleVersion),
	}, "; ")
	fetch := "import sys, urllib.request\nprint(urllib.request.urlopen(sys.argv[1]).read().decode())\n"
	if err := os.WriteFile(filepath.Join(e.project, "fetch.py"), []byte(fetch), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("--headless", "--prompt", "termnoperm "+line, "--", scriptAgent(t))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := fmt.Sprintf("hello from web.acpterm.test:%d/curl\ncurl ok\n", wp) +
		git.Head + "\tHEAD\n" + git.Head + "\trefs/heads/main\ngit ok\n" +
		fmt.Sprintf("hello from web.acpterm.test:%d/py\npy ok\n", wp) + "go ok\n"
	if w := fmt.Sprintf("exit=0 truncated=false output=%q", want); !strings.Contains(r.stdout, w) {
		t.Fatalf("headless output lacks %s:\n%s", w, r.stdout)
	}
	if strings.Contains(r.stdout, "[permission]") {
		t.Fatalf("an allowed host was asked about:\n%s", r.stdout)
	}
	src, err := os.ReadFile(filepath.Join(e.project, ".go", "mod", nettest.ModulePath+"@"+nettest.ModuleVersion, "hello.go"))
	if err != nil || string(src) != nettest.ModuleSource {
		t.Fatalf("the downloaded module: %q, %v", src, err)
	}
	// One record per connection, each allowed by its rule, from term-1, with bytes both ways.
	hosts := map[string]int{}
	for _, rec := range netRecords(t, e) {
		if rec.Verdict != "allow" || rec.By != "policy" || rec.Rule != "allow: "+rec.Host || rec.Terminal != "term-1" ||
			rec.Protocol != "connect" || rec.TS == "" || rec.Up <= 0 || rec.Down <= 0 {
			t.Fatalf("audit record %+v", rec)
		}
		hosts[rec.Host]++
	}
	if hosts["web.acpterm.test"] != 2 || hosts["git.acpterm.test"] < 1 || hosts["goproxy.acpterm.test"] < 1 || len(hosts) != 3 {
		t.Fatalf("connections by host: %v", hosts)
	}
}
