package acpclient

import (
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/coder/acp-go-sdk"
)

// BenchmarkStateApplyChunk measures folding one agent_message_chunk into a State.
func BenchmarkStateApplyChunk(b *testing.B) {
	var n acp.SessionNotification
	if err := json.Unmarshal([]byte(`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"some words of text\n"}}}`), &n); err != nil {
		b.Fatal(err)
	}
	ev := SessionUpdated{Update: n.Update}
	var s State
	b.ReportAllocs()
	for b.Loop() {
		s.Apply(ev)
		if len(s.Messages[0].Text) > 1<<20 {
			s = State{}
		}
	}
}

// BenchmarkFloodTurn measures a whole turn of 2,000 updates from the scripted agent over real
// pipes, through the wire reader and the event queue (reported per turn; divide by 2,000).
func BenchmarkFloodTurn(b *testing.B) {
	c, err := Start(b.Context(), Options{Command: []string{agentBin}, Cwd: b.TempDir(), Env: agentEnv("")})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	done := make(chan struct{})
	ended := make(chan TurnEnded, 1)
	go func() {
		defer close(done)
		for ev := range c.Events() {
			if e, ok := ev.(TurnEnded); ok {
				ended <- e
			}
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		c.Prompt("flood 2000")
		if e := <-ended; e.StopReason != "end_turn" {
			b.Fatalf("turn: %+v", e)
		}
	}
	b.StopTimer()
	c.Close()
	<-done
}

// BenchmarkReaperSweep measures one sweep while the agent runs: of our children (what SIGCHLD
// and the 2 s period trigger) and, for comparison, of all of /proc (the fallback when the
// kernel lacks /proc/PID/task/TID/children). Three live children of the benchmark are swept.
func BenchmarkReaperSweep(b *testing.B) {
	for range 3 {
		c := exec.Command("sleep", "600")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	}
	for _, full := range []bool{false, true} {
		name := "children"
		if full {
			name = "fullscan"
		}
		b.Run(name, func(b *testing.B) {
			r := newOrphanReaper(newMarker(), 0)
			r.noChildren = full
			b.ReportAllocs()
			for b.Loop() {
				r.sweep(false)
			}
		})
	}
}
