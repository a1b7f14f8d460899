package mcpterm

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acpterm/acpterm/terminals"
)

// The bridge's stream over HTTP (StreamPath, as a sandboxed agent's bridge reaches acpterm on
// its proxy listener): refused without the secret or without the upgrade, and with both an
// MCP stream like the unix socket's.
func TestBridgeOverHTTPStream(t *testing.T) {
	m := terminals.NewManager(terminals.ManagerOptions{})
	defer m.Close()
	svc := New(Options{Launch: directLauncher(m), Cwd: t.TempDir(), Shell: "/bin/sh"})
	defer svc.Close()
	ep, err := Listen(svc, EndpointOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	srv := httptest.NewServer(ep.Handler())
	defer srv.Close()
	url := srv.URL + StreamPath

	if err := Bridge(url, "wrong", strings.NewReader(""), io.Discard); err == nil ||
		err.Error() != "acpterm refused the bridge: 401 Unauthorized: acpterm: missing or wrong bearer secret" {
		t.Fatalf("wrong secret: %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+ep.Secret())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("no upgrade: %d", resp.StatusCode)
	}

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Bridge(url, ep.Secret(), inR, outW)
		outW.Close()
	}()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":1`) || !strings.Contains(line, `"serverInfo":{"name":"`+ServerName+`"`) {
		t.Fatalf("initialize over the stream: %q %v", line, err)
	}
	inW.Close() // the agent ends the stream: the bridge returns
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatalf("bridge: %v", err)
	}
}
