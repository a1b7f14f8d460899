package permissions

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func fixedClock(l *AuditLog) {
	t0 := time.Date(2026, 11, 29, 18, 42, 7, 113e6, time.UTC)
	n := 0
	l.now = func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
}

func writeEvents(t *testing.T, path string, n int) {
	t.Helper()
	l, err := OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	fixedClock(l)
	for i := 0; i < n; i++ {
		ev := AuditEvent{Session: "s-1", Kind: "exec", Argv: []string{"echo", fmt.Sprint(i)}, Verdict: Allow, Rule: "allow: echo", Reason: "allowed"}
		if err := l.Append(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func TestAuditChain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "audit.jsonl")
	writeEvents(t, path, 3)
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", st, err)
	}
	lines := readLines(t, path)
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	want0 := `{"v":1,"seq":1,"ts":"2026-11-29T18:42:08.113Z","prev":"","session":"s-1","kind":"exec","argv":["echo","0"],"verdict":"allow","rule":"allow: echo","reason":"allowed","by":"policy"}`
	if string(lines[0]) != want0 {
		t.Errorf("line 1:\n got %s\nwant %s", lines[0], want0)
	}
	for i := 1; i < 3; i++ {
		var ev AuditEvent
		if err := json.Unmarshal(lines[i], &ev); err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(lines[i-1])
		if ev.Seq != uint64(i+1) || ev.Prev != hex.EncodeToString(h[:]) {
			t.Errorf("line %d: seq %d prev %s", i+1, ev.Seq, ev.Prev)
		}
	}
	// Reopening continues the chain.
	writeEvents(t, path, 2)
	n, err := VerifyAudit(path)
	if err != nil || n != 5 {
		t.Fatalf("VerifyAudit = %d, %v", n, err)
	}
	var last AuditEvent
	lines = readLines(t, path)
	_ = json.Unmarshal(lines[4], &last)
	if last.Seq != 5 {
		t.Errorf("seq after reopen = %d", last.Seq)
	}
	if n, err := VerifyAudit(filepath.Join(dir, "empty")); err == nil {
		t.Errorf("missing file verified: %d", n)
	}
}

func TestAuditTamper(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	writeEvents(t, path, 5)
	orig, _ := os.ReadFile(path)
	lines := readLines(t, path)

	tamper := func(name string, edit func([][]byte) [][]byte, wantN int, wantErr string) {
		t.Helper()
		cp := make([][]byte, len(lines))
		for i := range lines {
			cp[i] = bytes.Clone(lines[i])
		}
		out := bytes.Join(edit(cp), []byte("\n"))
		if err := os.WriteFile(path, append(out, '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
		n, err := VerifyAudit(path)
		if err == nil || err.Error() != path+": "+wantErr || n != wantN {
			t.Errorf("%s: VerifyAudit = %d, %v\nwant %d, %s", name, n, err, wantN, wantErr)
		}
	}
	// One byte of a middle line's content (the argv "2" becomes "3").
	tamper("edit content of line 3", func(ls [][]byte) [][]byte {
		ls[2] = bytes.Replace(ls[2], []byte(`"echo","2"`), []byte(`"echo","3"`), 1)
		return ls
	}, 2, "line 3 was altered (line 4's prev does not match its hash)")
	// One byte of line 3's prev field.
	tamper("edit prev of line 3", func(ls [][]byte) [][]byte {
		i := bytes.Index(ls[2], []byte(`"prev":"`)) + len(`"prev":"`)
		ls[2][i] ^= 1
		return ls
	}, 2, "line 3 was altered (its prev does not match line 2 and line 4's prev does not match it)")
	tamper("delete line 3", func(ls [][]byte) [][]byte {
		return append(ls[:2:2], ls[3:]...)
	}, 2, "line 3 has seq 4, want 3 (a line was removed, inserted or edited)")
	tamper("broken JSON in line 2", func(ls [][]byte) [][]byte {
		ls[1] = ls[1][:len(ls[1])-1]
		return ls
	}, 1, "line 2 is not valid JSON: unexpected end of JSON input")
	tamper("edit the last line's predecessor link", func(ls [][]byte) [][]byte {
		ls[3] = bytes.Replace(ls[3], []byte(`"allowed"`), []byte(`"Allowed"`), 1)
		return ls
	}, 3, "line 4 or line 5 was altered (line 5's prev does not match the hash of line 4)")
	tamper("prev on line 1", func(ls [][]byte) [][]byte {
		ls[0] = bytes.Replace(ls[0], []byte(`"prev":""`), []byte(`"prev":"x"`), 1)
		return ls
	}, 0, "line 1 has a non-empty prev (the start of the chain was altered)")

	// The original still verifies.
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := VerifyAudit(path); err != nil || n != 5 {
		t.Errorf("original: %d %v", n, err)
	}
	// An incomplete last line refuses both verification and appending.
	if err := os.WriteFile(path, append(bytes.Clone(orig), `{"v":1`...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyAudit(path); err == nil || err.Error() != path+": line 6 is incomplete (no newline at the end of the file)" {
		t.Errorf("incomplete: %v", err)
	}
	if _, err := OpenAuditLog(path); err == nil || !strings.Contains(err.Error(), "the last line is incomplete") {
		t.Errorf("open incomplete: %v", err)
	}
}

func TestAuditEventFromDecision(t *testing.T) {
	d := Decision{
		Verdict: Deny, Rule: "deny: rm", Reason: `leaf 2 "rm -rf x" matches deny rule "rm"`,
		Leaves: []Leaf{
			{Argv: []string{"git", "status"}, Program: "/usr/bin/git", Via: []string{"bash -c"}, Verdict: Allow, Rule: "allow: git status", Reason: "r"},
			{Argv: []string{"rm", "-rf", "x"}, Verdict: Deny, Rule: "deny: rm"},
		},
		Argv: []string{"/bin/sh", "-c", "git status && rm -rf x --password=hunter2"}, Shell: true, Cwd: "/p",
		Env: []string{"SECRET_TOKEN=abc123", "CI=1"}, EnvAdded: []string{"CI", "SECRET_TOKEN"},
	}
	ev := NewAuditEvent("exec", d, "policy")
	ev.Session = "s-7"
	dir := t.TempDir()
	l, err := OpenAuditLog(filepath.Join(dir, "a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fixedClock(l)
	e := &Engine{audit: l}
	if err := e.Record(ev); err != nil {
		t.Fatal(err)
	}
	argv := []string{"--password=hunter2", "--api-key=k", "-H", "Authorization: Bearer t0k", "plain=1", "--user=bob"}
	if got := redactArgv(argv); strings.Join(got, " ") != "--password=<redacted> --api-key=<redacted> -H Authorization: <redacted> plain=1 --user=bob" {
		t.Errorf("redact = %q", got)
	}
	l.Close()
	data, _ := os.ReadFile(filepath.Join(dir, "a.jsonl"))
	want := `{"v":1,"seq":1,"ts":"2026-11-29T18:42:08.113Z","prev":"","session":"s-7","kind":"exec","argv":["/bin/sh","-c","git status && rm -rf x --password=<redacted>"],"cwd":"/p","verdict":"deny","rule":"deny: rm","reason":"leaf 2 \"rm -rf x\" matches deny rule \"rm\"","by":"policy","leaves":[{"argv":["git","status"],"program":"/usr/bin/git","via":["bash -c"],"verdict":"allow","rule":"allow: git status"},{"argv":["rm","-rf","x"],"verdict":"deny","rule":"deny: rm"}],"env_added":["CI","SECRET_TOKEN"]}` + "\n"
	if string(data) != want {
		t.Errorf("line:\n got %s\nwant %s", data, want)
	}
	if strings.Contains(string(data), "abc123") || strings.Contains(string(data), "hunter2") {
		t.Error("an env value reached the audit log")
	}
	// Without an audit log Record is a no-op; after Close Append fails.
	if err := (&Engine{}).Record(ev); err != nil {
		t.Error(err)
	}
	if err := l.Append(ev); err == nil {
		t.Error("Append after Close succeeded")
	}
}

func TestAuditTwoWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Two logs on one file (two acpterm processes) interleave without breaking the chain.
	for i := 0; i < 6; i++ {
		l := a
		if i%2 == 1 {
			l = b
		}
		if err := l.Append(AuditEvent{Kind: "read", Path: fmt.Sprintf("/p/%d", i), Verdict: Deny}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := VerifyAudit(path); err != nil || n != 6 {
		t.Errorf("VerifyAudit = %d, %v", n, err)
	}
}

func BenchmarkAuditAppendAllow(b *testing.B) {
	l, err := OpenAuditLog(filepath.Join(b.TempDir(), "audit.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ev := AuditEvent{Session: "s", Kind: "exec", Argv: []string{"git", "status"}, Verdict: Allow, Rule: "allow: git status"}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(ev); err != nil {
			b.Fatal(err)
		}
	}
}

func TestAuditRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenAuditLog(path) // a second process sharing the log
	if err != nil {
		t.Fatal(err)
	}
	a.rotateBytes, b.rotateBytes = 600, 600 // about three lines
	const total = 20
	for i := 0; i < total; i++ {
		l := a
		if i%3 == 2 {
			l = b
		}
		if err := l.Append(AuditEvent{Kind: "write", Path: fmt.Sprintf("/proj/file-%02d.go", i), Verdict: Ask, Rule: "fs.write"}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	b.Close()
	// Every file verifies; together they hold the last lines of the chain in order.
	var seqs []uint64
	for _, p := range []string{path + ".3", path + ".2", path + ".1", path} {
		n, err := VerifyAudit(p)
		if p == path+".3" {
			// The oldest kept file continues a dropped one: its start cannot be checked.
			if err == nil || !strings.Contains(err.Error(), "line 1 continues a rotated log") || !strings.Contains(err.Error(), "audit.jsonl.4 is missing") {
				t.Errorf("%s: %d %v", filepath.Base(p), n, err)
			}
		} else if err != nil || n == 0 {
			t.Errorf("%s: VerifyAudit = %d, %v", filepath.Base(p), n, err)
		}
		for _, line := range readLines(t, p) {
			var ev AuditEvent
			_ = json.Unmarshal(line, &ev)
			seqs = append(seqs, ev.Seq)
		}
	}
	if seqs[len(seqs)-1] != total {
		t.Errorf("last seq %d, want %d", seqs[len(seqs)-1], total)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("seqs across files not consecutive: %v", seqs)
		}
	}
	if _, err := os.Stat(path + ".4"); !os.IsNotExist(err) {
		t.Errorf("more than 3 rotated files kept: %v", err)
	}
	// Editing the rotated file's last line breaks the link from the current file.
	lines := readLines(t, path+".1")
	last := len(lines) - 1
	lines[last] = bytes.Replace(lines[last], []byte("fs.write"), []byte("fs.wrote"), 1)
	if err := os.WriteFile(path+".1", append(bytes.Join(lines, []byte("\n")), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyAudit(path); err == nil || !strings.Contains(err.Error(), "line 1 does not continue "+path+".1") {
		t.Errorf("tampered predecessor: %v", err)
	}
}

func TestAuditAndGrantsRefuseFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAuditLog(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") && !strings.Contains(err.Error(), "no such device") {
		t.Errorf("OpenAuditLog(fifo) = %v", err)
	}
	if _, err := NewGrantStore(fifo); err == nil || err.Error() != "grants file "+fifo+": not a regular file" {
		t.Errorf("NewGrantStore(fifo) = %v", err)
	}
}

// TestAuditHead: the head file anchors the end of the chain, so an edit to or the removal of
// the last record (which the chain alone cannot see) is reported.
func TestAuditHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeEvents(t, path, 5)
	orig, _ := os.ReadFile(path)
	lines := readLines(t, path)
	head := AuditHeadPath(path)
	st, err := os.Stat(head)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("head file: %v %v", st, err)
	}
	h := lineHash(lines[4])
	if raw, _ := os.ReadFile(head); string(raw) != `{"seq":5,"hash":"`+h+`"}`+"\n" {
		t.Fatalf("head file = %q", raw)
	}
	if n, note, err := VerifyAuditNote(path); err != nil || n != 5 || note != "" {
		t.Fatalf("intact: %d %q %v", n, note, err)
	}
	write := func(ls [][]byte) {
		t.Helper()
		if err := os.WriteFile(path, append(bytes.Join(ls, []byte("\n")), '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Edit the last line: the chain still links, the head does not match.
	edited := bytes.Replace(lines[4], []byte(`"verdict":"allow"`), []byte(`"verdict":"deny"`), 1)
	write(append(append([][]byte(nil), lines[:4]...), edited))
	want := path + ": last record (seq 5) altered or removed; head says seq 5 hash " + h[:12] + ", the log's last line hashes to " + lineHash(edited)[:12]
	if n, err := VerifyAudit(path); err == nil || err.Error() != want || n != 4 {
		t.Errorf("edited last line: %d, %v\nwant 4, %s", n, err, want)
	}
	// Delete the last line.
	write(lines[:4])
	want = path + ": last record (seq 5) removed: the log ends at seq 4; head says seq 5 hash " + h[:12]
	if n, err := VerifyAudit(path); err == nil || err.Error() != want || n != 4 {
		t.Errorf("deleted last line: %d, %v\nwant 4, %s", n, err, want)
	}
	// Delete every line.
	write(nil)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	want = path + ": the log is empty but its head file says seq 5 hash " + h[:12] + ", and the rotated file " + path + ".1 it would continue is missing: records were removed"
	if _, err := VerifyAudit(path); err == nil || err.Error() != want {
		t.Errorf("emptied log: %v\nwant %s", err, want)
	}
	// Intact again; then appending through the logger keeps the head current.
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := VerifyAudit(path); err != nil || n != 5 {
		t.Errorf("restored: %d %v", n, err)
	}
	writeEvents(t, path, 1)
	if n, err := VerifyAudit(path); err != nil || n != 6 {
		t.Errorf("after append: %d %v", n, err)
	}
	// A line appended behind the logger's back (chain-correct) is caught too.
	all := readLines(t, path)
	forged := bytes.Replace(all[5], []byte(`"seq":6`), []byte(`"seq":7`), 1)
	forged = bytes.Replace(forged, []byte(`"prev":"`+string(bytes.Split(bytes.Split(all[5], []byte(`"prev":"`))[1], []byte(`"`))[0])+`"`), []byte(`"prev":"`+lineHash(all[5])+`"`), 1)
	write(append(all, forged))
	if _, err := VerifyAudit(path); err == nil || !strings.Contains(err.Error(), "records after seq 6 were not written by acpterm's logger (the log ends at seq 7") {
		t.Errorf("forged append: %v", err)
	}
	// A non-empty log without its head file fails: its last records may have been changed.
	write(all)
	if err := os.Remove(head); err != nil {
		t.Fatal(err)
	}
	n, note, err := VerifyAuditNote(path)
	if err == nil || note != "" || err.Error() != path+": the head file "+head+" is missing: the logger writes it after every record, so without it an edit to or removal of the last records cannot be ruled out" {
		t.Errorf("no head: %d %q %v", n, note, err)
	}
	// A garbled head file is an error naming it.
	if err := os.WriteFile(head, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyAudit(path); err == nil || err.Error() != path+`: head file `+head+` is not a valid head record (want {"seq":N,"hash":"<64 hex>"})` {
		t.Errorf("garbled head: %v", err)
	}
}

// A log larger than bufio.Scanner's default 64 KiB buffer verifies. verifyChain once kept the
// scanner's slices, which the scanner overwrote when it refilled its buffer, so an intact log over
// 64 KiB failed with "line 1 is not valid JSON".
func TestAuditVerifyBigLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeEvents(t, path, 1500)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 4*64<<10 {
		t.Fatalf("log is %d bytes, want over %d", st.Size(), 4*64<<10)
	}
	if n, note, err := VerifyAuditNote(path); err != nil || n != 1500 || note != "" {
		t.Fatalf("VerifyAuditNote = %d, %q, %v; want 1500, \"\", nil", n, note, err)
	}

	// Tampering deep in the big log is found, on the right line.
	lines := readLines(t, path)
	write := func(ls [][]byte) {
		t.Helper()
		if err := os.WriteFile(path, append(bytes.Join(ls, []byte("\n")), '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	edited := append([][]byte(nil), lines...)
	edited[1233] = bytes.Replace(lines[1233], []byte(`"echo","1233"`), []byte(`"echo","1234"`), 1)
	if bytes.Equal(edited[1233], lines[1233]) {
		t.Fatal("the edit changed nothing")
	}
	write(edited)
	want := path + ": line 1234 was altered (line 1235's prev does not match its hash)"
	if n, err := VerifyAudit(path); err == nil || err.Error() != want || n != 1233 {
		t.Errorf("edited line 1234: %d, %v\nwant 1233, %s", n, err, want)
	}
	removed := append(append([][]byte(nil), lines[:1400]...), lines[1401:]...)
	write(removed)
	want = path + ": line 1401 has seq 1402, want 1401 (a line was removed, inserted or edited)"
	if n, err := VerifyAudit(path); err == nil || err.Error() != want || n != 1400 {
		t.Errorf("removed line 1401: %d, %v\nwant 1400, %s", n, err, want)
	}
	write(lines)
	if n, err := VerifyAudit(path); err != nil || n != 1500 {
		t.Errorf("restored: %d, %v", n, err)
	}
}

// A single line longer than bufio.Scanner's default buffer (an agent may send a long shell
// script as one argv word) is written, continued after reopening, and verified; an edit to it is
// detected.
func TestAuditVerifyHugeLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeEvents(t, path, 3)
	script := strings.Repeat("echo 0123456789abcdef; ", 10000) // 230,000 bytes
	l, err := OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	fixedClock(l)
	if err := l.Append(AuditEvent{Kind: "exec", Argv: []string{"bash", "-c", script}, Verdict: Ask, Reason: "asked"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopening continues the chain from the huge last line.
	writeEvents(t, path, 3)
	lines := readLines(t, path)
	if len(lines) != 7 || len(lines[3]) <= len(script) || len(lines[3]) <= bufio.MaxScanTokenSize {
		t.Fatalf("%d lines, line 4 is %d bytes", len(lines), len(lines[3]))
	}
	if n, note, err := VerifyAuditNote(path); err != nil || n != 7 || note != "" {
		t.Fatalf("VerifyAuditNote = %d, %q, %v; want 7, \"\", nil", n, note, err)
	}
	edited := append([][]byte(nil), lines...)
	edited[3] = bytes.Replace(lines[3], []byte("echo 0123456789abcdef; echo 0123456789abcdef; \""), []byte("echo 0123456789abcdef; rm -rf /tmp/x;           \""), 1)
	if bytes.Equal(edited[3], lines[3]) {
		t.Fatal("the edit changed nothing")
	}
	if err := os.WriteFile(path, append(bytes.Join(edited, []byte("\n")), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	want := path + ": line 4 was altered (line 5's prev does not match its hash)"
	if n, err := VerifyAudit(path); err == nil || err.Error() != want || n != 3 {
		t.Errorf("edited line 4: %d, %v\nwant 3, %s", n, err, want)
	}
}

// TestAuditVerifyHeadAndRotation: the head file and the rotated predecessor are checked for an
// empty log and for a rotated one: an empty log with a head verifies only right after a rotation
// (the head names the predecessor's last record); a missing or different predecessor fails, as
// does a missing head next to a rotated file; a rotated file itself verifies with a note.
func TestAuditVerifyHeadAndRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	writeEvents(t, path, 3)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head := AuditHeadPath(path)
	headData, err := os.ReadFile(head)
	if err != nil {
		t.Fatal(err)
	}
	reset := func(log, pred []byte, withHead bool) {
		t.Helper()
		if err := os.WriteFile(path, log, 0o600); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(path + ".1")
		if pred != nil {
			if err := os.WriteFile(path+".1", pred, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		_ = os.Remove(head)
		if withHead {
			if err := os.WriteFile(head, headData, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The predecessor's last record differs from what the head names.
	last := bytes.LastIndex(full, []byte(`"ts":"`))
	other := append(append(append([]byte(nil), full[:last]...), []byte(`"ts":"X`)...), full[last+len(`"ts":"`)+1:]...)
	for _, c := range []struct {
		name      string
		log, pred []byte
		withHead  bool
		want      string // "" = verifies
	}{
		{"new empty log", nil, nil, false, ""},
		{"just rotated", nil, full, true, ""},
		{"empty with head, no predecessor", nil, nil, true, "the log is empty but its head file says seq 3"},
		{"empty with head, other predecessor", nil, other, true, "does not match the last record of the rotated file"},
		{"empty without head, predecessor present", nil, full, false, "the log is empty and its head file " + head + " is missing, but the rotated file"},
		{"non-empty without head", full, nil, false, "the head file " + head + " is missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reset(c.log, c.pred, c.withHead)
			_, err := VerifyAudit(path)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("error %v, want it to verify", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// A rotated file has no head of its own: it verifies, and the note says so.
	reset(nil, full, true)
	n, note, err := VerifyAuditNote(path + ".1")
	if err != nil || n != 3 || !strings.Contains(note, "is a rotated file and has no head file") {
		t.Errorf("rotated file: %d %q %v", n, note, err)
	}
}
