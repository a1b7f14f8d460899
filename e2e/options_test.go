package e2e

import "testing"

func TestTUIOptionsDialog(t *testing.T) {
	e := newEnv(t)
	e.extraEnv = append(e.extraEnv, "SCRIPTAGENT_SCENARIO=options")
	tm := startScript(t, e)
	tm.keys("M-c")
	tm.waitFor("Session options")
	tm.waitFor("› Model          ‹ Fast ›")
	tm.waitFor("  Effort         ‹ Medium ›")
	tm.waitFor("  Brief answers  off")
	tm.keys("Down", "Right")
	tm.waitFor("Effort         ‹ High ›")
	tm.keys("Down", "Space")
	tm.waitFor("Brief answers  on")
	waitLog(t, e, "set_config_option effort=high")
	waitLog(t, e, "set_config_option brief=true")
	tm.keys("Escape")
	tm.waitGone("Session options")
	quit(t, e, tm, 0)
}
