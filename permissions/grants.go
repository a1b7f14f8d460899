package permissions

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acpterm/acpterm/permissions/policy"
	"github.com/acpterm/acpterm/permissions/programs"
)

// Grant is one "always" approval: the narrowest rule covering what a
// person approved. It allows a leaf whose program and words match; it is consulted only for
// leaves that no rule decided (unmatched → ask), so it never overrides an ask or deny rule.
type Grant struct {
	// ID identifies the grant for listing and Revoke ("g-" + 12 hex digits).
	ID string `json:"id"`
	// Session is the ACP session the grant is scoped to; "" means every session of this engine
	// (in memory) or, when Saved, every future run.
	Session string `json:"session,omitempty"`
	// Kind is "exec" (a command; "" reads as exec), "read" or "write" (a file, Path), or
	// "host" (a network destination, Host and Port).
	Kind string `json:"kind,omitempty"`
	// Host is the host name or IP literal of a host grant, exactly as the client asked for it
	// (normalised: lower-case, no trailing dot); Port its port (0: every port).
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
	// Path is the real path of a file grant (Kind read/write): that exact file only.
	Path string `json:"path,omitempty"`
	// Argv is the approved words of a command grant: the whole argv (Prefix false) or
	// program + first subcommand token (Prefix true).
	Argv []string `json:"argv,omitempty"`
	// Prefix reports that Argv is a prefix: the leaf may carry more words after it.
	Prefix bool `json:"prefix,omitempty"`
	// Program is the resolved real path the approval was for; "" when unresolved. When set, a
	// leaf must resolve to the same path.
	Program string `json:"program,omitempty"`
	// Tool is the ACP tool kind (edit, delete, move) of the agent's permission request a file
	// grant answers (GrantTool). Set, the grant covers only the agent's later
	// session/request_permission of that kind for that path (AllowsTool), never acpterm's own
	// checks of fs/write_text_file or of a command's write targets. "" for every other grant.
	Tool string `json:"tool,omitempty"`
	// Saved reports that the grant is persisted in the grants file.
	Saved bool `json:"saved,omitempty"`
	// Created is when the grant was made.
	Created time.Time `json:"created"`
}

// Rule renders the grant as a person reads it, e.g. `grant: git fetch origin` or
// `grant: go test …`.
func (g Grant) Rule() string {
	if g.isFile() && g.Tool != "" {
		return "grant: agent " + g.Tool + " " + g.Path
	}
	if g.isFile() {
		return "grant: " + g.Kind + " " + g.Path
	}
	if g.isHost() {
		if g.Port == 0 {
			return "grant: host " + g.Host
		}
		return "grant: host " + HostPort(g.Host, g.Port)
	}
	s := "grant: " + strings.Join(g.Argv, " ")
	if g.Prefix {
		s += " …"
	}
	return s
}

func (g Grant) isFile() bool { return g.Kind == "read" || g.Kind == "write" }

func (g Grant) isHost() bool { return g.Kind == "host" }

// isCommand reports a command grant (Kind "exec" or "").
func (g Grant) isCommand() bool { return g.Kind == "" || g.Kind == "exec" }

// matches reports whether the grant covers leaf.
func (g Grant) matches(leaf Leaf) bool {
	if !g.isCommand() || len(leaf.Argv) == 0 || len(g.Argv) == 0 || slices.Contains(leaf.Argv, DynamicWord) {
		return false
	}
	if g.Program != "" && leaf.Program != g.Program {
		return false
	}
	if g.Program == "" && leaf.Argv[0] != g.Argv[0] {
		return false
	}
	if g.Prefix {
		return len(leaf.Argv) >= len(g.Argv) && slices.Equal(leaf.Argv[1:len(g.Argv)], g.Argv[1:])
	}
	return len(leaf.Argv) == len(g.Argv) && slices.Equal(leaf.Argv[1:], g.Argv[1:])
}

// GrantStore keeps grants in memory and, for saved ones, in a JSON file (mode 0600). The file is
// the truth for saved grants: it is re-read whenever it changed on disk (another acpterm saved or
// revoked one), and every change is made under an exclusive lock on "<file>.lock" after a fresh
// read, so concurrent processes neither lose grants nor bring back a revoked one. It is safe for
// concurrent use.
type GrantStore struct {
	mu     sync.Mutex
	file   string
	grants []Grant   // session grants and the saved grants last read from file
	stamp  fileStamp // the file as last read ("" file: unused)
	warns  []string  // saved grants the last read skipped, and why
}

// fileStamp identifies one version of the grants file.
type fileStamp struct {
	ino   uint64
	size  int64
	mtime time.Time
	exist bool
}

// grantsFile is the on-disk form.
type grantsFile struct {
	Version int     `json:"version"`
	Grants  []Grant `json:"grants"`
}

// NewGrantStore loads the saved grants from file ("" = no persistence; a missing file is an
// empty store). Errors: the file is not a regular file, is writable by others or owned by
// another user, or is not valid JSON of the expected shape (version 1). A grant in it that is
// malformed (no id, empty argv) or that this engine would not make (a banned head such as a
// shell or make, a build runner such as npm rb or cargo build, a dynamic word) is not an
// error: it is skipped and reported by Warnings, and dropped from the file the next time a
// grant is saved or revoked.
func NewGrantStore(file string) (*GrantStore, error) {
	s := &GrantStore{file: file}
	if file == "" {
		return s, nil
	}
	saved, warns, stamp, err := readGrantsFile(file)
	if err != nil {
		return nil, err
	}
	s.grants, s.warns, s.stamp = saved, warns, stamp
	return s, nil
}

// Warnings lists the saved grants the last read of the grants file skipped, one line each, e.g.
// `grants file /h/.local/state/acpterm/grants.json: grant g-1 (make) ignored: make is a build
// runner executing workspace recipes`. Empty when every saved grant loaded.
func (s *GrantStore) Warnings() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.warns)
}

// grantRefusal says why argv may never be covered by a command grant: a banned head
// (bannedHead), or a program that executes workspace code (Spec.WorkspaceCode: npm rb, cargo
// build, go test …), which a grant could cover after the sandbox is gone. "" when a grant is
// fine.
func grantRefusal(argv []string) string {
	if why := bannedHead(argv); why != "" {
		return why
	}
	if len(argv) > 0 {
		if spec, _ := programs.Lookup(filepath.Base(argv[0])); spec != nil && spec.WorkspaceCode != nil {
			if hit, ok := spec.WorkspaceCode(argv); ok {
				return hit.Reason
			}
		}
	}
	return ""
}

// readGrantsFile reads and validates the saved grants (none when the file does not exist);
// the grants it skips come back as warnings.
func readGrantsFile(file string) ([]Grant, []string, fileStamp, error) {
	fh, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a FIFO must not block
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fileStamp{}, nil
	}
	if err != nil {
		return nil, nil, fileStamp{}, fmt.Errorf("grants file: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, nil, fileStamp{}, fmt.Errorf("grants file: %w", err)
	}
	// Saved grants turn asks into allows: a file someone else could write is refused.
	if !st.Mode().IsRegular() {
		return nil, nil, fileStamp{}, fmt.Errorf("grants file %s: not a regular file", file)
	}
	if st.Size() > 16<<20 {
		return nil, nil, fileStamp{}, fmt.Errorf("grants file %s: %d bytes is too large", file, st.Size())
	}
	if st.Mode().Perm()&0o022 != 0 {
		return nil, nil, fileStamp{}, fmt.Errorf("grants file %s: writable by group or others (mode %04o); run chmod 600 on it", file, st.Mode().Perm())
	}
	stamp := stampOf(st)
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return nil, nil, fileStamp{}, fmt.Errorf("grants file %s: owned by uid %d, not the current user", file, sys.Uid)
	}
	data, err := io.ReadAll(fh)
	if err != nil {
		return nil, nil, fileStamp{}, fmt.Errorf("grants file %s: %w", file, err)
	}
	var gf grantsFile
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&gf); err != nil {
		return nil, nil, fileStamp{}, fmt.Errorf("grants file %s: %w", file, err)
	}
	if gf.Version != 1 {
		return nil, nil, fileStamp{}, fmt.Errorf("grants file %s: unsupported version %d (want 1)", file, gf.Version)
	}
	var out []Grant
	var warns []string
	for i, g := range gf.Grants {
		if g.ID == "" {
			warns = append(warns, fmt.Sprintf("grants file %s: grant %d ignored: it has no id", file, i+1))
			continue
		}
		if err := g.check(); err != nil {
			warns = append(warns, fmt.Sprintf("grants file %s: grant %s ignored: %v", file, g.ID, err))
			continue
		}
		if g.isCommand() {
			why := grantRefusal(g.Argv)
			if why == "" && slices.Contains(g.Argv, DynamicWord) {
				why = "it has words only known when the shell runs"
			}
			if why != "" {
				warns = append(warns, fmt.Sprintf("grants file %s: grant %s (%s) ignored: %s", file, g.ID, strings.Join(g.Argv, " "), why))
				continue
			}
		}
		g.Saved = true
		g.Session = ""
		out = append(out, g)
	}
	return out, warns, stamp, nil
}

func stampOf(st fs.FileInfo) fileStamp {
	fsm := fileStamp{size: st.Size(), mtime: st.ModTime(), exist: true}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		fsm.ino = sys.Ino
	}
	return fsm
}

// refreshLocked re-reads the saved grants when the file changed since the last read (or force).
// A file that became unreadable or invalid drops every saved grant (fail closed) and returns
// the error.
func (s *GrantStore) refreshLocked(force bool) error {
	if s.file == "" {
		return nil
	}
	var now fileStamp
	if st, err := os.Stat(s.file); err == nil {
		now = stampOf(st)
	}
	if !force && now == s.stamp {
		return nil
	}
	saved, warns, stamp, err := readGrantsFile(s.file)
	kept := slices.DeleteFunc(s.grants, func(g Grant) bool { return g.Saved })
	if err != nil {
		s.grants, s.stamp, s.warns = kept, now, nil
		return err
	}
	s.grants, s.stamp, s.warns = append(kept, saved...), stamp, warns
	return nil
}

// lockFile takes the exclusive lock that serialises grants-file updates between processes.
func (s *GrantStore) lockFile() (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(s.file), 0o700); err != nil {
		return nil, fmt.Errorf("grants file: %w", err)
	}
	f, err := os.OpenFile(s.file+".lock", os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("grants file lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("grants file lock: %w", err)
	}
	return func() { f.Close() }, nil // closing releases the flock
}

// Allows reports whether a grant covers leaf in session, and which. The caller consults it only
// for leaves that no rule matched (unmatched → ask); a grant never overrides a deny or ask rule.
// Leaves with dynamic words or banned heads are never covered.
func (s *GrantStore) Allows(session string, leaf Leaf) (grantID string, ok bool) {
	if s == nil || grantRefusal(leaf.Argv) != "" {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refreshLocked(false) // on error the saved grants are gone: fail closed
	for _, g := range s.grants {
		if (g.Saved || g.Session == "" || g.Session == session) && g.matches(leaf) {
			return g.ID, true
		}
	}
	return "", false
}

// check validates the shape of a grant: a command grant has argv, a file grant an absolute path.
func (g Grant) check() error {
	switch g.Kind {
	case "", "exec":
		if len(g.Argv) == 0 {
			return fmt.Errorf("empty command")
		}
	case "read", "write":
		if !filepath.IsAbs(g.Path) || len(g.Argv) != 0 {
			return fmt.Errorf("a file grant needs an absolute path and no argv")
		}
		if g.Tool != "" && !toolKinds[g.Tool] {
			return fmt.Errorf("unknown tool kind %q (edit, delete or move)", g.Tool)
		}
	case "host":
		r, err := policy.ParseHostRule(g.Host)
		if err != nil || r.Wildcard || r.Port != 0 || r.Host != g.Host || g.Port < 0 || g.Port > 65535 || len(g.Argv) != 0 || g.Path != "" {
			return fmt.Errorf("a host grant needs one host name or IP literal, a port (0 = any) and no argv or path")
		}
	default:
		return fmt.Errorf("unknown kind %q (exec, read, write or host)", g.Kind)
	}
	return nil
}

// AllowsPath reports whether a grant covers a file read or write (op "read"/"write") of the
// real path, and which. DecideRead/DecideWrite consult it only when the configured verdict is
// ask; it never overrides a deny, a protected path or a link concern.
func (s *GrantStore) AllowsPath(op, real string) (grantID string, ok bool) {
	if s == nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refreshLocked(false)
	for _, g := range s.grants {
		if g.Kind == op && g.Path == real && g.Tool == "" {
			return g.ID, true
		}
	}
	return "", false
}

// AllowsTool reports whether a grant made from the agent's "always" (GrantTool) covers the
// agent's permission request of tool kind tool for a file operation op ("write") on the real
// path, and which.
func (s *GrantStore) AllowsTool(tool, op, real string) (grantID string, ok bool) {
	if s == nil || tool == "" {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refreshLocked(false)
	for _, g := range s.grants {
		if g.Tool == tool && g.Kind == op && g.Path == real {
			return g.ID, true
		}
	}
	return "", false
}

// List returns the grants, oldest first (a copy).
func (s *GrantStore) List() []Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refreshLocked(false)
	out := make([]Grant, len(s.grants))
	for i, g := range s.grants {
		g.Argv = slices.Clone(g.Argv)
		out[i] = g
	}
	return out
}

// Add stores g (assigning ID and Created when empty) and, when g.Saved, rewrites the grants
// file. Errors: banned head, empty argv, saving without a grants file, or a write failure.
func (s *GrantStore) Add(g Grant) (Grant, error) {
	g, _, err := s.add(g)
	return g, err
}

// add is Add that also reports whether a new grant was stored (false: an equal one existed).
func (s *GrantStore) add(g Grant) (Grant, bool, error) {
	if err := g.check(); err != nil {
		return Grant{}, false, fmt.Errorf("grant: %v", err)
	}
	if why := grantRefusal(g.Argv); g.isCommand() && why != "" {
		return Grant{}, false, fmt.Errorf("grant refused for %q: %s", strings.Join(g.Argv, " "), why)
	}
	if slices.Contains(g.Argv, DynamicWord) {
		return Grant{}, false, fmt.Errorf("grant refused for %q: it has words only known when the shell runs", strings.Join(g.Argv, " "))
	}
	if g.ID == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		g.ID = "g-" + hex.EncodeToString(b[:])
	}
	if g.Created.IsZero() {
		g.Created = time.Now().UTC().Truncate(time.Second)
	}
	g.Argv = slices.Clone(g.Argv)
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.Saved && s.file == "" {
		return Grant{}, false, fmt.Errorf("grant: cannot save %q: no grants file configured", strings.TrimPrefix(g.Rule(), "grant: "))
	}
	if g.Saved {
		unlock, err := s.lockFile()
		if err != nil {
			return Grant{}, false, err
		}
		defer unlock()
		if err := s.refreshLocked(true); err != nil {
			return Grant{}, false, err
		}
	}
	for _, old := range s.grants {
		if old.Saved == g.Saved && old.Session == g.Session && old.Prefix == g.Prefix && old.Kind == g.Kind &&
			old.Path == g.Path && old.Host == g.Host && old.Port == g.Port && old.Program == g.Program && old.Tool == g.Tool && slices.Equal(old.Argv, g.Argv) {
			return old, false, nil // already granted
		}
	}
	s.grants = append(s.grants, g)
	if g.Saved {
		if err := s.saveLocked(); err != nil {
			s.grants = s.grants[:len(s.grants)-1]
			return Grant{}, false, err
		}
	}
	return g, true, nil
}

// Revoke removes the grant with id; a saved grant is removed from the grants file too (a grant
// another acpterm already revoked counts as removed). Error: no such grant, or the file cannot
// be written.
func (s *GrantStore) Revoke(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.grants, func(g Grant) bool { return g.ID == id }) // as last listed
	if i < 0 {
		return fmt.Errorf("revoke: no grant %q", id)
	}
	if !s.grants[i].Saved {
		s.grants = slices.Delete(s.grants, i, i+1)
		return nil
	}
	unlock, err := s.lockFile()
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.refreshLocked(true); err != nil {
		return err
	}
	i = slices.IndexFunc(s.grants, func(g Grant) bool { return g.ID == id })
	if i < 0 {
		return nil // revoked elsewhere meanwhile
	}
	g := s.grants[i]
	s.grants = slices.Delete(s.grants, i, i+1)
	if err := s.saveLocked(); err != nil {
		s.grants = slices.Insert(s.grants, i, g)
		return err
	}
	return nil
}

// saveLocked writes the saved grants atomically (temp file + rename, mode 0600).
func (s *GrantStore) saveLocked() error {
	gf := grantsFile{Version: 1, Grants: []Grant{}}
	for _, g := range s.grants {
		if g.Saved {
			gf.Grants = append(gf.Grants, g)
		}
	}
	data, err := json.MarshalIndent(gf, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	dir := filepath.Dir(s.file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("grants file: %w", err)
	}
	f, err := os.CreateTemp(dir, ".grants-*.tmp")
	if err != nil {
		return fmt.Errorf("grants file: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(0o600)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, s.file)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("grants file %s: %w", s.file, werr)
	}
	if st, err := os.Stat(s.file); err == nil {
		s.stamp = stampOf(st)
	}
	s.warns = nil // the skipped grants are no longer in the file
	return nil
}

// interpreters run code given inline or from stdin; shells and wrappers run other programs.
// bannedBuiltins are shell builtins that run code or other programs: never granted.
var bannedBuiltins = map[string]string{
	"eval": "a shell builtin that runs code", "exec": "a shell builtin that runs another program",
	"source": "a shell builtin that runs a script", ".": "a shell builtin that runs a script",
	"command": "a wrapper that runs another program",
}

// bannedHead says why argv may never get an "always" grant: a program whose spec says so
// (shells, interpreters, wrappers, privilege escalation: Spec.NoGrant), a builtin that runs
// code, or a command line whose options launch programs or write files (Spec.Launch: git -c,
// find -exec …). "" when a grant is fine.
func bannedHead(argv []string) string {
	if len(argv) == 0 {
		return "empty command"
	}
	prog := filepath.Base(argv[0])
	if why, ok := bannedBuiltins[prog]; ok {
		return prog + " is " + why
	}
	spec, exact := programs.Lookup(prog)
	if spec == nil {
		return ""
	}
	if exact && spec.NoGrant != "" {
		return prog + " is " + spec.NoGrant
	}
	if spec.Launch != nil {
		if hit, ok := spec.Launch(prog, argv[1:]); ok {
			return hit.Reason + ", so it is never granted"
		}
	}
	return ""
}

// isSubcommandToken reports whether w looks like a subcommand ("test", "status", "run-script"):
// lower-case letters, digits, '-' and '_', starting with a letter.
func isSubcommandToken(w string) bool {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// GrantOptions selects how wide a grant made by GrantWith is.
type GrantOptions struct {
	// Session scopes the grant to one ACP session; "" = every session of this engine.
	Session string
	// Persist saves the grant to the grants file (it then applies to every session and run).
	Persist bool
	// Subcommand widens each leaf's grant from the exact argv to program + first subcommand
	// token (e.g. "go test" for `go test ./x`), when argv[1] is such a token.
	Subcommand bool
}

// Grant makes an "always" grant for what d asked about: for each leaf that asked (verdict ask),
// the exact argv with its resolved program (the narrowest rule). Several asking leaves make
// several grants; the first is returned. For a file decision (DecideRead/DecideWrite asked
// because of the [policy.fs] verdict) the grant covers that exact real path for that operation;
// a link concern (rule "link") is never granted. With persist the grants are saved to the
// grants file.
// Errors: d is a deny or has no asking leaf, a leaf is banned (shell, interpreter, env, sudo,
// xargs, find -exec, git -c, npm run, make, …), has dynamic words, or runs a program inside the
// roots (the agent could rewrite it) or by relative path; nothing is granted then.
func (e *Engine) Grant(d Decision, persist bool) (Grant, error) {
	gs, err := e.GrantWith(d, GrantOptions{Persist: persist})
	if err != nil {
		return Grant{}, err
	}
	return gs[0], nil
}

// CanGrant reports whether Grant/GrantWith would make a grant for d, and if not, the same
// error they would return (nothing is granted). A dialog offers "always" (allow for the
// session, save the rule) only when CanGrant(d) is nil: for a build runner such as make, a
// shell, a program-launching option (tar -I), an ask rule or anything else a grant would not
// override, it is an error.
func (e *Engine) CanGrant(d Decision) error {
	_, _, err := e.grantsFor(d, GrantOptions{})
	return err
}

// GrantWith is Grant with scope options; it returns every grant made (one per asking leaf).
// Each new grant is recorded in the audit log (kind "grant").
func (e *Engine) GrantWith(d Decision, o GrantOptions) ([]Grant, error) {
	want, file, err := e.grantsFor(d, o)
	if err != nil {
		return nil, err
	}
	if file != nil {
		g, isNew, err := e.grants.add(*file)
		if err != nil {
			return nil, err
		}
		if isNew {
			e.auditGrant("grant", g)
		}
		return []Grant{g}, nil
	}
	var out []Grant
	var created []string
	for _, g := range want {
		got, isNew, err := e.grants.add(g)
		if err != nil {
			for _, id := range created {
				_ = e.grants.Revoke(id)
			}
			return nil, err
		}
		if isNew {
			created = append(created, got.ID)
		}
		out = append(out, got)
	}
	for _, g := range out {
		if slices.Contains(created, g.ID) {
			e.auditGrant("grant", g)
		}
	}
	return out, nil
}

// auditGrant records a grant made or revoked (kind "grant" or "revoke") in the audit log; a
// failed write is ignored here as elsewhere in the engine's own bookkeeping (the log's
// verification shows a gap).
func (e *Engine) auditGrant(kind string, g Grant) {
	v, scope := Allow, "session"
	if kind == "revoke" {
		v = Deny
	}
	if g.Saved {
		scope = "saved"
	}
	ev := AuditEvent{Kind: kind, Argv: redactArgv(g.Argv), Path: g.Path, Verdict: v, Rule: g.Rule(),
		Reason: scope, By: "user", Grant: g.ID, Host: g.Host, Port: g.Port}
	_ = e.Record(ev)
}

// grantsFor returns the grants GrantWith would add for d (a file grant, or command grants), or
// why none can be made.
func (e *Engine) grantsFor(d Decision, o GrantOptions) ([]Grant, *Grant, error) {
	if d.Verdict == Deny {
		return nil, nil, fmt.Errorf("grant refused: the request is denied (%s)", d.Rule)
	}
	if d.Host != "" {
		// A network connection: only the unmatched ask verdict is granted, for exactly the
		// host and port asked about.
		if d.Verdict != Ask || d.Rule != NetworkUnmatchedRule {
			return nil, nil, fmt.Errorf("grant refused for %s: only a host no [policy.network] rule covers can be granted (%s)", HostPort(d.Host, d.Port), d.Rule)
		}
		r, err := policy.ParseHostRule(HostPort(d.Host, d.Port))
		if err != nil || r.Wildcard || d.Port < 1 || d.Port > 65535 {
			return nil, nil, fmt.Errorf("grant refused for %s: not a host and port", HostPort(d.Host, d.Port))
		}
		g := Grant{Kind: "host", Host: r.Host, Port: d.Port, Session: o.Session, Saved: o.Persist}
		if o.Persist {
			g.Session = ""
		}
		return nil, &g, nil
	}
	if len(d.Leaves) == 0 && d.Path != "" {
		op, ok := strings.CutPrefix(d.Rule, "fs.")
		if d.Verdict != Ask || !ok || (op != "read" && op != "write") {
			return nil, nil, fmt.Errorf("grant refused for %s: only the [policy.fs] ask verdict can be granted (%s)", d.Path, d.Rule)
		}
		return nil, &Grant{Kind: op, Path: d.Path, Saved: o.Persist}, nil
	}
	var want []Grant
	for _, l := range d.Leaves {
		if l.Verdict == Deny {
			return nil, nil, fmt.Errorf("grant refused: %q is denied (%s)", strings.Join(l.Argv, " "), l.Rule)
		}
		if l.Verdict != Ask {
			continue
		}
		if why := bannedHead(l.Argv); why != "" {
			return nil, nil, fmt.Errorf("grant refused for %q: %s", strings.Join(l.Argv, " "), why)
		}
		// Grants are consulted only for leaves no rule covered (Allows); a leaf that asks
		// because of an ask rule, a program-launching option, a build runner or a shell
		// construct would ask again whatever was granted.
		if l.Rule != "unmatched" {
			return nil, nil, fmt.Errorf("grant refused for %q: it asks because of %s (%s), which a grant does not override", strings.Join(l.Argv, " "), l.Rule, l.Reason)
		}
		if why := grantRefusal(l.Argv); why != "" {
			return nil, nil, fmt.Errorf("grant refused for %q: %s", strings.Join(l.Argv, " "), why)
		}
		if slices.Contains(l.Argv, DynamicWord) {
			return nil, nil, fmt.Errorf("grant refused for %q: it has words only known when the shell runs", strings.Join(l.Argv, " "))
		}
		// A program the agent can rewrite would make "always" cover whatever it writes next.
		if l.Program != "" && e.roots.Contains(l.Program) {
			return nil, nil, fmt.Errorf("grant refused for %q: %s is inside the roots, so its content can change", strings.Join(l.Argv, " "), l.Program)
		}
		if l.Program == "" && strings.Contains(l.Argv[0], "/") && !filepath.IsAbs(l.Argv[0]) {
			return nil, nil, fmt.Errorf("grant refused for %q: %s is a relative program path", strings.Join(l.Argv, " "), l.Argv[0])
		}
		g := Grant{Argv: slices.Clone(l.Argv), Program: l.Program, Session: o.Session, Saved: o.Persist}
		if o.Persist {
			g.Session = ""
		}
		if o.Subcommand && len(l.Argv) >= 2 && isSubcommandToken(l.Argv[1]) {
			g.Argv, g.Prefix = g.Argv[:2], true
		}
		want = append(want, g)
	}
	if len(want) == 0 {
		return nil, nil, fmt.Errorf("grant refused: no command in the request needed approval")
	}
	return want, nil, nil
}

// toolKinds are the ACP tool kinds a tool file grant may name (GrantTool).
var toolKinds = map[string]bool{"edit": true, "delete": true, "move": true}

// GrantTool remembers the agent's "always" for a file tool call: d is the DecideWrite decision
// of one path the agent's request of ACP tool kind tool (edit, delete or move) touches, and the
// grant covers later requests of that kind for that exact real path (AllowsTool, consulted by
// DecideToolWrite), for the session or, with persist, saved. It is recorded in the audit log
// (kind "grant"). Errors: an unknown tool kind, or a decision only the [policy.fs] ask verdict
// did not decide (a deny, a protected path, a link concern), as CanGrant says; nothing is
// granted then.
func (e *Engine) GrantTool(tool string, d Decision, persist bool) (Grant, error) {
	if !toolKinds[tool] {
		return Grant{}, fmt.Errorf("grant refused: the agent's %q tool calls are not remembered (only edit, delete and move)", tool)
	}
	if d.Rule != "fs.write" {
		return Grant{}, fmt.Errorf("grant refused for %s: only the [policy.fs] write ask verdict can be granted (%s)", d.Path, d.Rule)
	}
	_, file, err := e.grantsFor(d, GrantOptions{Persist: persist})
	if err != nil {
		return Grant{}, err
	}
	file.Tool = tool
	g, isNew, err := e.grants.add(*file)
	if err != nil {
		return Grant{}, err
	}
	if isNew {
		e.auditGrant("grant", g)
	}
	return g, nil
}

// DecideToolWrite is DecideWrite for a path the agent's permission request of ACP tool kind
// tool touches: a grant made by GrantTool for that kind and path turns the configured ask into
// allow (Decision.Grant names it). Everything else is DecideWrite's.
func (e *Engine) DecideToolWrite(tool, path string) Decision {
	d := e.DecideWrite(path)
	if d.Verdict == Ask && d.Rule == "fs.write" {
		if id, ok := e.grants.AllowsTool(tool, "write", d.Path); ok {
			d.Verdict, d.Rule, d.Grant = Allow, "grant: agent "+tool+" "+d.Path, id
			d.Reason = fmt.Sprintf("agent %s of %s allowed by grant %s", tool, d.Path, id)
		}
	}
	return d
}

// Grants lists the engine's grants (session and saved), oldest first.
func (e *Engine) Grants() []Grant { return e.grants.List() }

// Revoke removes a grant by id; a saved grant is also removed from the grants file.
// It records the revocation in the audit log (kind "revoke").
func (e *Engine) Revoke(id string) error {
	var g Grant
	for _, x := range e.grants.List() {
		if x.ID == id {
			g = x
		}
	}
	if err := e.grants.Revoke(id); err != nil {
		return err
	}
	if g.ID != "" {
		e.auditGrant("revoke", g)
	}
	return nil
}

// GrantWarnings lists the saved grants the engine ignored when it read the grants file (see
// GrantStore.Warnings); the caller shows them (stderr, the log, a status line) and goes on.
func (e *Engine) GrantWarnings() []string { return e.grants.Warnings() }

// GrantStore returns the engine's grant store (the command analysis consults its Allows).
func (e *Engine) GrantStore() *GrantStore { return e.grants }
