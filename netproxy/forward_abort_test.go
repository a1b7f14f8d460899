package netproxy

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestPlainHTTPCutShortCounted: an origin that declares 1 MiB and sends 100 000 bytes before it
// hangs up makes the forwarded response end early for the client (net/http aborts it), and the
// record still counts the bytes that came back (before, an aborted copy left Down at 0).
func TestPlainHTTPCutShortCounted(t *testing.T) {
	srv := httpServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(1<<20))
		w.WriteHeader(200)
		io.WriteString(w, strings.Repeat("x", 100_000))
		w.(http.Flusher).Flush()
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}
	}))
	h := newHarness(t, harnessOpts{decide: rules("plain.acpterm.test")})
	resp, err := h.client(t).Get(fmt.Sprintf("http://plain.acpterm.test:%d/cut", srv))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil || n >= 1<<20 {
		t.Fatalf("client read %d bytes, %v; want fewer than 1 MiB and an error", n, err)
	}
	r := h.record(t)
	if r.Verdict != Allow || r.Down < 100_000 || r.Down > 100_000+1024 || r.Up == 0 {
		t.Fatalf("record = %+v; want Down 100000 plus the header", r)
	}
}
