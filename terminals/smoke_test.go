package terminals

import "testing"

func TestSmoke(t *testing.T) {
	m := newMgr(t, ManagerOptions{})
	term := startT(t, m, StartOptions{ShellLine: "printf 'a\\nb\\nc'"})
	st := waitExit(t, term)
	out := term.Output()
	if out.Text != "a\nb\nc" || st.String() != "exit 0" {
		t.Fatalf("got %q %v", out.Text, st)
	}
	_ = term.Release()
}
