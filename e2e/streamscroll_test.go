package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTUIStreamedFloodScrollsCleanly streams a reply of 2 000 one-line chunks ("1\n" … "2000\n",
// one paragraph) into the real binary in a 160×48 tmux window, then a second turn: while the
// reply grows the conversation scrolls on most frames, which the renderer does with the
// terminal's scrolling (rows moved, not repainted). What tmux shows afterwards must be exactly
// the end of the paragraph: consecutive numbers up to 2000 on the rows above the second prompt,
// nothing left over from a moved row.
func TestTUIStreamedFloodScrollsCleanly(t *testing.T) {
	e := newEnv(t)
	tm := startTmux(t, e, 160, 48)
	tm.acpterm("--cwd", e.project, "--prompt", "flood 2000", "--prompt", "echo FLOOD-DONE", "--", scriptAgent(t))
	// 2 000 chunks of one growing paragraph take well over the usual 30 s under the race
	// detector: wait for the end as long as the turn needs, up to 5 minutes.
	screen, done := tm.Poll(5*time.Minute, func(scr string) bool { return strings.Contains(scr, "FLOOD-DONE") })
	if !done {
		t.Fatalf("the flood did not end within 5 minutes; screen:\n%s", screen)
	}
	rows := strings.Split(screen, "\n")
	end := -1
	for i, r := range rows {
		if strings.Contains(r, "echo FLOOD-DONE") {
			end = i
			break
		}
	}
	if end < 10 {
		t.Fatalf("the second prompt is not below the flood:\n%s", screen)
	}
	var nums []int
	for _, r := range rows[:end] {
		for _, f := range strings.Fields(r) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("row %q holds %q, not a number of the flood; screen:\n%s", r, f, screen)
			}
			nums = append(nums, n)
		}
	}
	if len(nums) < 200 || nums[len(nums)-1] != 2000 {
		t.Fatalf("the rows above the second prompt end with %v, want many numbers ending in 2000; screen:\n%s", nums[max(len(nums)-5, 0):], screen)
	}
	for i := 1; i < len(nums); i++ {
		if nums[i] != nums[i-1]+1 {
			t.Fatalf("%d follows %d on the screen; screen:\n%s", nums[i], nums[i-1], screen)
		}
	}
	tm.keys("C-q")
	if code := tm.exitCode(); code != 0 {
		t.Fatalf("acpterm exit status %d", code)
	}
}
