package permissions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// AuditVersion is the "v" field of every audit line.
const AuditVersion = 1

// AuditEvent is one line of the audit log: one per decision, automatic or human.
// It never holds environment values or file contents: only variable names, argv and paths.
// V, Seq, TS and Prev are filled in by AuditLog.Append.
type AuditEvent struct {
	V    int    `json:"v"`    // the record format version (AuditVersion)
	Seq  uint64 `json:"seq"`  // the line's number in the chain, from 1, continued across rotations
	TS   string `json:"ts"`   // RFC 3339 UTC, millisecond precision
	Prev string `json:"prev"` // SHA-256 hex of the previous line (without its "\n"); "" for the first
	// Session is the ACP session id.
	Session string `json:"session,omitempty"`
	// Req identifies the request, e.g. "terminal/create#41".
	Req string `json:"req,omitempty"`
	// Kind is "exec", "read", "write" or "permission" (an agent's session/request_permission),
	// "net" (a connection through acpterm's network proxy; see Host), "elicitation" (an agent's
	// elicitation/create: verdict allow when accepted, Reason the mode, action and the agent's
	// message, Fields the fields answered),
	// or "grant" / "revoke" when an "always" grant is made (verdict allow) or revoked (verdict
	// deny); Grant names it, Rule is its Grant.Rule, Reason says "session" or "saved".
	Kind string `json:"kind"`
	// Argv is what was (or would have been) executed; token-like option values are redacted.
	Argv []string `json:"argv,omitempty"`
	// Cwd is the real working directory of a command.
	Cwd string `json:"cwd,omitempty"`
	// Path is the real path of a file request.
	Path string `json:"path,omitempty"`
	// Verdict is the outcome: allow, ask (recorded when a prompt is shown) or deny.
	Verdict Verdict `json:"verdict"`
	// Rule is the deciding rule; Reason one readable line.
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
	// By is who decided: "policy", "user", "approve-flag" (headless --approve), "grant" or "cancel".
	By string `json:"by"`
	// Grant is the id of the grant that allowed the request, if any.
	Grant string `json:"grant,omitempty"`
	// Leaves summarises the simple commands found, each with its verdict and rule.
	Leaves []AuditLeaf `json:"leaves,omitempty"`
	// Constructs lists shell constructs that raised the verdict.
	Constructs []string `json:"constructs,omitempty"`
	// EnvAdded names the variables the agent added (names only, never values).
	EnvAdded []string `json:"env_added,omitempty"`
	// Judged is the command text judged for a permission request and JudgedFrom where it came
	// from ("rawInput.command" or "title"); see Decision.Judged.
	Judged     string `json:"judged,omitempty"`
	JudgedFrom string `json:"judged_from,omitempty"`

	// Network connections (kind "net", one per connection through acpterm's proxy, written
	// when it closes; a grant of kind "host" also fills Host and Port):
	// Host and Port are the destination the client asked for, Addr the address dialed.
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
	Addr string `json:"addr,omitempty"`
	// Via is the user's own proxy the connection went through (no password); "" when direct.
	Via string `json:"via,omitempty"`
	// Protocol is how the client asked: "connect", "http" or "socks5".
	Protocol string `json:"protocol,omitempty"`
	// Terminal is the terminal whose command connected, or "agent"; for kind "input", the
	// terminal the agent typed into.
	Terminal string `json:"terminal,omitempty"`
	// Program is that terminal's command (or the agent) as a person reads it.
	Program string `json:"program,omitempty"`
	// BytesUp and BytesDown are the bytes sent to and received from the destination.
	BytesUp   int64 `json:"bytes_up,omitempty"`
	BytesDown int64 `json:"bytes_down,omitempty"`
	// DurationMS is how long the connection was open, in milliseconds.
	DurationMS int64 `json:"duration_ms,omitempty"`
	// Input, Bytes and Prefix describe input the agent sent to an interactive terminal (kind
	// "input", Terminal names it): the input action (text, paste, key, mouse, focus, raw), its
	// size in bytes and its first bytes (at most 16, never a whole paste).
	Input  string `json:"input,omitempty"`
	Bytes  int    `json:"bytes,omitempty"`
	Prefix string `json:"prefix,omitempty"`

	// Fields names the fields of an answered elicitation (kind "elicitation"; names only,
	// never values).
	Fields []string `json:"fields,omitempty"`
}

// AuditLeaf is the audit summary of one Leaf.
type AuditLeaf struct {
	Argv    []string `json:"argv"`              // the command's words (Leaf.Argv)
	Program string   `json:"program,omitempty"` // the real path it resolved to (Leaf.Program)
	Via     []string `json:"via,omitempty"`     // the wrappers it ran under (Leaf.Via)
	Verdict Verdict  `json:"verdict"`           // the leaf's own verdict
	Rule    string   `json:"rule,omitempty"`    // the rule that decided it
}

// NewAuditEvent builds the event for decision d of the given kind ("exec", "read", "write",
// "permission") decided by by ("policy", "user", "approve-flag", "grant", "cancel"). The verdict is d.Verdict;
// callers recording a person's answer set Verdict to what the person chose.
func NewAuditEvent(kind string, d Decision, by string) AuditEvent {
	ev := AuditEvent{
		Kind: kind, Argv: redactArgv(d.Argv), Cwd: d.Cwd, Path: d.Path, Verdict: d.Verdict,
		Rule: d.Rule, Reason: d.Reason, By: by, Grant: d.Grant, Constructs: d.Constructs,
		EnvAdded: d.EnvAdded, JudgedFrom: d.JudgedFrom,
	}
	if d.Judged != "" {
		ev.Judged = redactArgv([]string{d.Judged})[0]
	}
	for _, l := range d.Leaves {
		ev.Leaves = append(ev.Leaves, AuditLeaf{Argv: redactArgv(l.Argv), Program: l.Program, Via: l.Via, Verdict: l.Verdict, Rule: l.Rule})
	}
	return ev
}

var (
	secretOptRe = regexp.MustCompile(`(?i)(-{1,2}[a-z0-9_-]*(?:password|passwd|token|secret|api[-_]?key|auth)[a-z0-9_-]*=)[^\s'"]+`)
	authHdrRe   = regexp.MustCompile(`(?i)(authorization:)\s*[^'"]+`)
)

// redactArgv replaces the value of --password=…-style options (password, passwd, token,
// secret, api-key, auth) and "Authorization: …" headers with "<redacted>", also inside a
// shell line.
func redactArgv(argv []string) []string {
	if argv == nil {
		return nil
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		a = secretOptRe.ReplaceAllString(a, "${1}<redacted>")
		out[i] = authHdrRe.ReplaceAllString(a, "${1} <redacted>")
	}
	return out
}

// AuditLog appends hash-chained JSON lines to a file. Each line's "prev" is the
// SHA-256 (hex) of the previous line's bytes without the newline, and "seq" counts from 1, so a
// removed, inserted or edited line breaks the chain (VerifyAudit). Safe for concurrent use.
type AuditLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
	seq  uint64
	prev string
	size int64 // file size after our last write; another writer changes it
	now  func() time.Time
	// rotateBytes is the size at which the log rotates (AuditRotateBytes; tests use less).
	rotateBytes int64
}

// OpenAuditLog opens (creating it and its directory, mode 0700) the audit log at path with
// O_APPEND, mode 0600, and continues the chain of an existing file from its last line.
// Errors: the file cannot be opened, or its last line is incomplete or not an audit event (the
// message names the line; run `acpterm audit verify`).
func OpenAuditLog(path string) (*AuditLog, error) {
	if path == "" {
		return nil, fmt.Errorf("audit log: empty path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	l := &AuditLog{f: f, path: path, now: time.Now, rotateBytes: AuditRotateBytes}
	if err := l.loadTail(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// openAppend opens (creating, mode 0600) a regular file for appending; O_NONBLOCK keeps a FIFO
// planted at the path from blocking the open, and anything but a regular file is refused.
func openAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit log: %w", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("audit log %s: not a regular file", path)
	}
	if st.Mode().Perm()&0o077 != 0 {
		_ = f.Chmod(0o600)
	}
	return f, nil
}

// loadTail continues seq and prev from the last line of the log; an empty log continues from
// the last line of its rotated predecessor (path.1) when there is one.
func (l *AuditLog) loadTail() error {
	seq, prev, size, err := tailOf(l.path)
	if err != nil {
		return err
	}
	l.size = size
	if size == 0 {
		seq, prev = 0, ""
		if s1, p1, n1, err := tailOf(l.path + ".1"); err == nil && n1 > 0 {
			seq, prev = s1, p1
		}
	}
	l.seq, l.prev = seq, prev
	return nil
}

// tailOf reads the last line of the audit log at path: its seq, its hash and the file size.
// A missing file is size 0 with no error only for the rotated predecessor's caller; here it is
// an error like any other open failure.
func tailOf(path string) (seq uint64, prev string, size int64, err error) {
	r, err := os.Open(path)
	if err != nil {
		return 0, "", 0, fmt.Errorf("audit log: %w", err)
	}
	defer r.Close()
	st, err := r.Stat()
	if err != nil {
		return 0, "", 0, fmt.Errorf("audit log: %w", err)
	}
	size = st.Size()
	if size == 0 {
		return 0, "", 0, nil
	}
	// Read backwards in growing chunks until the start of the last line is found.
	for chunk := int64(64 << 10); ; chunk *= 4 {
		off := max(size-chunk, 0)
		buf := make([]byte, size-off)
		if _, err := r.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return 0, "", 0, fmt.Errorf("audit log: %w", err)
		}
		if buf[len(buf)-1] != '\n' {
			return 0, "", 0, fmt.Errorf("audit log %s: the last line is incomplete (no newline); move the file aside or repair it", path)
		}
		body := buf[:len(buf)-1]
		i := bytes.LastIndexByte(body, '\n')
		if i < 0 && off > 0 {
			continue
		}
		last := body[i+1:]
		var ev AuditEvent
		if err := json.Unmarshal(last, &ev); err != nil || ev.V == 0 || ev.Seq == 0 {
			return 0, "", 0, fmt.Errorf("audit log %s: the last line is not an audit event; run `acpterm audit verify %s`", path, path)
		}
		return ev.Seq, lineHash(last), size, nil
	}
}

func lineHash(line []byte) string {
	h := sha256.Sum256(line)
	return hex.EncodeToString(h[:])
}

// Path returns the file the log writes to.
func (l *AuditLog) Path() string { return l.path }

// Append writes ev as the next line, filling V, Seq, TS and Prev. The line is written with a
// single write(2); it is fsynced when the verdict is deny or ask (or the kind is "permission"),
// so refusals and prompts survive a crash. Error: the log is closed or the write failed.
func (l *AuditLog) Append(ev AuditEvent) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("audit log %s: closed", l.path)
	}
	unlock, err := l.lock()
	if err != nil {
		return err
	}
	defer unlock()
	ev.V = AuditVersion
	ev.Seq = l.seq + 1
	ev.TS = l.now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
	ev.Prev = l.prev
	if ev.By == "" {
		ev.By = "policy"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "&&" and "<dynamic>" readable
	if err := enc.Encode(ev); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if _, err := l.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("audit log %s: %w", l.path, err)
	}
	l.seq = ev.Seq
	l.prev = lineHash(line)
	l.size += int64(buf.Len())
	sync := ev.Verdict != Allow || ev.Kind == "permission"
	if sync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("audit log %s: fsync: %w", l.path, err)
		}
	}
	return writeAuditHead(l.path, l.seq, l.prev, sync)
}

// AuditHeadPath names the head anchor of the audit log at path: a small JSON file
// {"seq":N,"hash":"…"} holding the seq and SHA-256 (hex) of the log's last line. A hash chain
// alone cannot show that its last line was edited or removed; VerifyAudit compares the chain's
// end with the head.
func AuditHeadPath(path string) string { return path + ".head" }

// auditHead is the content of the head file.
type auditHead struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
}

// writeAuditHead replaces the head file of the log at path atomically (temp file in the same
// directory, mode 0600, then rename), fsyncing file and directory when sync is set (the line
// itself was fsynced). The caller holds the log's flock, so the fixed temp name is not shared.
func writeAuditHead(path string, seq uint64, hash string, sync bool) error {
	head := AuditHeadPath(path)
	data, _ := json.Marshal(auditHead{Seq: seq, Hash: hash})
	tmp := head + ".tmp"
	_ = os.Remove(tmp) // a leftover (or planted) file or link is not written through
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("audit log head %s: %w", head, err)
	}
	_, err = f.Write(append(data, '\n'))
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, head)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("audit log head %s: %w", head, err)
	}
	if sync {
		if d, err := os.Open(filepath.Dir(head)); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
	return nil
}

// predecessor names the file a rotated log continues: audit.jsonl → audit.jsonl.1,
// audit.jsonl.N → audit.jsonl.N+1.
func predecessor(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		if n, err := strconv.Atoi(path[i+1:]); err == nil && n > 0 && !strings.HasPrefix(path[i+1:], "0") {
			return fmt.Sprintf("%s.%d", path[:i], n+1)
		}
	}
	return path + ".1"
}

// AuditRotateBytes is the size (bytes) at which Append moves the log to path.1 (path.1 → path.2
// → path.3, the oldest dropped) and starts a new file that continues the chain: its first line
// carries the next seq and the hash of the rotated file's last line.
const AuditRotateBytes int64 = 64 << 20

// auditKeep is how many rotated files are kept (path.1 … path.N).
const auditKeep = 3

// lock takes the exclusive flock that serialises appends between acpterm processes sharing the
// log, on the file the path names now (another process may have rotated it), and brings seq,
// prev and size up to date with the file; it rotates a full log. The caller holds l.mu and
// calls unlock when done.
func (l *AuditLog) lock() (unlock func(), err error) {
	for tries := 0; ; tries++ {
		f := l.f
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			return nil, fmt.Errorf("audit log %s: lock: %w", l.path, err)
		}
		unlock = func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
		fst, err1 := f.Stat()
		pst, err2 := os.Stat(l.path)
		if err1 != nil {
			unlock()
			return nil, fmt.Errorf("audit log %s: %w", l.path, err1)
		}
		if tries > 10 {
			unlock()
			return nil, fmt.Errorf("audit log %s: the file keeps being replaced", l.path)
		}
		if err2 != nil || !os.SameFile(fst, pst) {
			// Rotated (or removed) by someone else: reopen what the path names now.
			unlock()
			if err := l.reopen(); err != nil {
				return nil, err
			}
			continue
		}
		if fst.Size() != l.size {
			if err := l.loadTail(); err != nil {
				unlock()
				return nil, err
			}
		}
		if l.rotateBytes > 0 && l.size >= l.rotateBytes {
			err := l.rotate()
			unlock()
			if err != nil {
				return nil, err
			}
			continue // lock the new file
		}
		return unlock, nil
	}
}

// reopen opens l.path afresh (creating it) and closes the old file.
func (l *AuditLog) reopen() error {
	f, err := openAppend(l.path)
	if err != nil {
		return err
	}
	old := l.f
	l.f = f
	old.Close()
	return l.loadTail()
}

// rotate shifts path.N-1 → path.N … path → path.1 and opens a new, empty path. The caller holds
// the flock of the current file, so no other process appends meanwhile.
func (l *AuditLog) rotate() error {
	for i := auditKeep - 1; i >= 1; i-- {
		from, to := fmt.Sprintf("%s.%d", l.path, i), fmt.Sprintf("%s.%d", l.path, i+1)
		if err := os.Rename(from, to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("audit log rotate: %w", err)
		}
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return fmt.Errorf("audit log rotate: %w", err)
	}
	return l.reopen()
}

// Close syncs and closes the file; later Appends fail. Idempotent.
func (l *AuditLog) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// Record appends ev to the engine's audit log (a no-op without one). Session-less events get
// nothing added; callers fill Session and Req.
func (e *Engine) Record(ev AuditEvent) error {
	if e.audit == nil {
		return nil
	}
	return e.audit.Append(ev)
}

// VerifyAudit walks the hash chain of the audit log at path and returns the number of lines.
// Each line must be an audit event (v = 1) whose seq is one more than the previous line's
// and whose prev is the SHA-256 of the previous line. The first line has seq 1 and prev "", or,
// after a rotation, continues the last line of its predecessor (path.1 for path, path.N+1 for
// path.N) with the next seq and that line's hash; that predecessor must exist and match.
// The error names the first bad line: when line N's prev does not match line N-1, line N-1 was
// altered (or, if line N+1 does not match line N either, line N itself). The end of the chain
// is checked against the head file (AuditHeadPath), which the logger rewrites after every line:
//   - a non-empty live log (a name not ending in .N) without a head file is an error (its last
//     records could have been edited or removed without a trace);
//   - an empty log with a head file is an error unless the head names the last line of the
//     rotated predecessor (the log was just rotated); an empty log without one is a new log,
//     unless a predecessor exists (then the head was removed);
//   - a last line that was edited or removed, or lines appended without the head, is an error
//     naming the seq.
//
// A rotated file (path.N) has no head of its own: it verifies, and VerifyAuditNote says so.
func VerifyAudit(path string) (lines int, err error) {
	lines, _, err = VerifyAuditNote(path)
	return lines, err
}

// rotatedName reports whether path names a rotated audit file (… .N with N ≥ 1).
func rotatedName(path string) bool {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return false
	}
	n, err := strconv.Atoi(path[i+1:])
	return err == nil && n > 0 && !strings.HasPrefix(path[i+1:], "0")
}

// VerifyAuditNote is VerifyAudit that also returns a note for the user when the log verified
// but could not be checked fully: "" normally, or a sentence saying a rotated file has no head
// file, so an edit to or removal of its last record is only detected by the file after it.
func VerifyAuditNote(path string) (lines int, note string, err error) {
	lines, lastSeq, lastHash, err := verifyChain(path)
	if err != nil {
		return lines, "", err
	}
	empty := false
	if st, serr := os.Stat(path); serr == nil && st.Size() == 0 {
		empty = true
	}
	pred := predecessor(path)
	_, predErr := os.Stat(pred)
	headPath := AuditHeadPath(path)
	raw, err := os.ReadFile(headPath)
	if errors.Is(err, fs.ErrNotExist) {
		switch {
		case rotatedName(path):
			return lines, fmt.Sprintf("%s is a rotated file and has no head file: an edit to or removal of its last record shows only when the file after it is verified", path), nil
		case !empty:
			return lines, "", fmt.Errorf("%s: the head file %s is missing: the logger writes it after every record, so without it an edit to or removal of the last records cannot be ruled out", path, headPath)
		case predErr == nil:
			return lines, "", fmt.Errorf("%s: the log is empty and its head file %s is missing, but the rotated file %s exists: the head (and records after the rotation) were removed", path, headPath, pred)
		}
		return lines, "", nil // a new, empty log
	}
	if err != nil {
		return lines, "", fmt.Errorf("audit verify: head file: %w", err)
	}
	var h auditHead
	if err := json.Unmarshal(raw, &h); err != nil || h.Seq == 0 || len(h.Hash) != 64 {
		return lines, "", fmt.Errorf("%s: head file %s is not a valid head record (want {\"seq\":N,\"hash\":\"<64 hex>\"})", path, headPath)
	}
	short := func(x string) string {
		if len(x) > 12 {
			return x[:12]
		}
		return x
	}
	if empty {
		switch {
		case predErr != nil:
			return 0, "", fmt.Errorf("%s: the log is empty but its head file says seq %d hash %s, and the rotated file %s it would continue is missing: records were removed", path, h.Seq, short(h.Hash), pred)
		case lastSeq == 0:
			return 0, "", fmt.Errorf("%s: the log is empty but its head file says seq %d hash %s, and the rotated file %s holds no records", path, h.Seq, short(h.Hash), pred)
		case h.Seq != lastSeq || h.Hash != lastHash:
			return 0, "", fmt.Errorf("%s: the log is empty and its head file (seq %d hash %s) does not match the last record of the rotated file %s (seq %d hash %s): records were removed or altered", path, h.Seq, short(h.Hash), pred, lastSeq, short(lastHash))
		}
		return 0, "", nil // just rotated: the head names the predecessor's last record
	}
	switch {
	case h.Seq > lastSeq:
		return lines, "", fmt.Errorf("%s: last record (seq %d) removed: the log ends at seq %d; head says seq %d hash %s", path, h.Seq, lastSeq, h.Seq, short(h.Hash))
	case h.Seq < lastSeq:
		return lines, "", fmt.Errorf("%s: records after seq %d were not written by acpterm's logger (the log ends at seq %d; head says seq %d hash %s)", path, h.Seq, lastSeq, h.Seq, short(h.Hash))
	case h.Hash != lastHash:
		return max(lines-1, 0), "", fmt.Errorf("%s: last record (seq %d) altered or removed; head says seq %d hash %s, the log's last line hashes to %s", path, h.Seq, h.Seq, short(h.Hash), short(lastHash))
	}
	return lines, "", nil
}

// verifyChain walks the hash chain of the log at path (see VerifyAudit) and returns the number
// of lines and the seq and hash of the chain's last line (for an empty file: the last line of
// its rotated predecessor, or 0 and "").
func verifyChain(path string) (lines int, lastSeq uint64, lastHash string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, "", fmt.Errorf("audit verify: %w", err)
	}
	if len(data) == 0 {
		if s1, p1, n1, err := tailOf(predecessor(path)); err == nil && n1 > 0 {
			return 0, s1, p1, nil
		}
		return 0, 0, "", nil
	}
	if data[len(data)-1] != '\n' {
		n := bytes.Count(data, []byte{'\n'}) + 1
		return n - 1, 0, "", fmt.Errorf("%s: line %d is incomplete (no newline at the end of the file)", path, n)
	}
	// Split the file in place: each line is a sub-slice of data, which nothing overwrites (a
	// bufio.Scanner's Bytes would be reused by its next Scan), and no line length is too long.
	// A line keeps every byte, "\r" included, so it hashes as the logger wrote it.
	all := bytes.Split(data[:len(data)-1], []byte{'\n'})
	type head struct {
		V    int     `json:"v"`
		Seq  *uint64 `json:"seq"`
		Prev *string `json:"prev"`
	}
	heads := make([]head, len(all))
	for i, line := range all {
		if err := json.Unmarshal(line, &heads[i]); err != nil {
			return i, 0, "", fmt.Errorf("%s: line %d is not valid JSON: %v", path, i+1, err)
		}
		h := heads[i]
		if h.V != AuditVersion || h.Seq == nil || h.Prev == nil {
			return i, 0, "", fmt.Errorf("%s: line %d is not an audit event (v, seq and prev are required)", path, i+1)
		}
	}
	// The first line starts the chain (seq 1, prev "") or continues the rotated predecessor.
	first := *heads[0].Seq
	switch {
	case first == 1 && *heads[0].Prev == "":
	case first > 1 && *heads[0].Prev != "":
		pred := predecessor(path)
		s1, p1, n1, err := tailOf(pred)
		if err != nil || n1 == 0 {
			return 0, 0, "", fmt.Errorf("%s: line 1 continues a rotated log (seq %d) but %s is missing or unreadable, so the start cannot be checked", path, first, pred)
		}
		if p1 != *heads[0].Prev || s1+1 != first {
			return 0, 0, "", fmt.Errorf("%s: line 1 does not continue %s (its last line has seq %d and another hash)", path, pred, s1)
		}
	case first == 1:
		return 0, 0, "", fmt.Errorf("%s: line 1 has a non-empty prev (the start of the chain was altered)", path)
	default:
		return 0, 0, "", fmt.Errorf("%s: line 1 has seq %d but no prev (the start of the log was removed)", path, first)
	}
	linkOK := func(i int) bool { // line i's prev matches line i-1
		return *heads[i].Prev == lineHash(all[i-1])
	}
	for i := 1; i < len(all); i++ {
		want := first + uint64(i)
		if *heads[i].Seq != want {
			return i, 0, "", fmt.Errorf("%s: line %d has seq %d, want %d (a line was removed, inserted or edited)", path, i+1, *heads[i].Seq, want)
		}
		if linkOK(i) {
			continue
		}
		if i+1 < len(all) && !linkOK(i+1) {
			return i, 0, "", fmt.Errorf("%s: line %d was altered (its prev does not match line %d and line %d's prev does not match it)", path, i+1, i, i+2)
		}
		if i+1 == len(all) {
			return i - 1, 0, "", fmt.Errorf("%s: line %d or line %d was altered (line %d's prev does not match the hash of line %d)", path, i, i+1, i+1, i)
		}
		return i - 1, 0, "", fmt.Errorf("%s: line %d was altered (line %d's prev does not match its hash)", path, i, i+1)
	}
	return len(all), *heads[len(all)-1].Seq, lineHash(all[len(all)-1]), nil
}
