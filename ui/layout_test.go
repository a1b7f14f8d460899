package ui

import (
	"testing"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/acpterm/acpterm/terminals"
)

func TestLayoutNoPanes(t *testing.T) {
	l := computeLayout(layoutInput{width: 100, height: 30, editorLines: 1, selected: -1})
	if l.conv != uv.Rect(0, 0, 100, 27) || l.sep != uv.Rect(0, 27, 100, 1) ||
		l.editor != uv.Rect(0, 28, 100, 1) || l.status != uv.Rect(0, 29, 100, 1) || len(l.panes) != 0 {
		t.Fatalf("layout = %+v", l)
	}
	// The editor grows with its text, up to editorMaxLines.
	l = computeLayout(layoutInput{width: 100, height: 30, editorLines: 9, selected: -1})
	if l.editor != uv.Rect(0, 23-0, 100, 6) || l.conv.Dy() != 22 {
		t.Fatalf("tall editor layout = %+v", l)
	}
}

func TestLayoutWideStacksPanesRight(t *testing.T) {
	l := computeLayout(layoutInput{width: 200, height: 50, panes: 3, editorLines: 1, selected: 0})
	if l.conv != uv.Rect(0, 0, 80, 47) {
		t.Fatalf("conv = %v", l.conv)
	}
	want := []paneRect{
		{0, uv.Rect(80, 0, 120, 15)},
		{1, uv.Rect(80, 15, 120, 15)},
		{2, uv.Rect(80, 30, 120, 17)},
	}
	if len(l.panes) != 3 || l.tabbed {
		t.Fatalf("panes = %+v", l.panes)
	}
	for i := range want {
		if l.panes[i] != want[i] {
			t.Errorf("pane %d = %+v, want %+v", i, l.panes[i], want[i])
		}
	}
	if got := paneSize(l.panes[0].outer); got != (terminals.Size{Cols: 118, Rows: 13}) {
		t.Errorf("pane 0 size = %+v", got)
	}
}

func TestLayoutNarrowSideBySideThenTabbed(t *testing.T) {
	l := computeLayout(layoutInput{width: 100, height: 40, panes: 2, editorLines: 1, selected: 1})
	if l.conv != uv.Rect(0, 0, 100, 19) || l.tabbed {
		t.Fatalf("conv = %v tabbed=%v", l.conv, l.tabbed)
	}
	if l.panes[0] != (paneRect{0, uv.Rect(0, 19, 50, 18)}) || l.panes[1] != (paneRect{1, uv.Rect(50, 19, 50, 18)}) {
		t.Fatalf("panes = %+v", l.panes)
	}
	// Three panes in 100 columns would be 33 wide (< paneMinCols): tabbed, selected one shown.
	l = computeLayout(layoutInput{width: 100, height: 40, panes: 3, editorLines: 1, selected: 1})
	if !l.tabbed || l.tabs != uv.Rect(0, 19, 100, 1) || len(l.panes) != 1 || l.panes[0] != (paneRect{1, uv.Rect(0, 20, 100, 17)}) {
		t.Fatalf("tabbed layout = %+v", l)
	}
	if got := paneSize(l.panes[0].outer); got != (terminals.Size{Cols: 98, Rows: 15}) {
		t.Errorf("tabbed pane size = %+v", got)
	}
}

func TestLayoutWideManyPanesTabbedAndZoom(t *testing.T) {
	l := computeLayout(layoutInput{width: 150, height: 24, panes: 5, editorLines: 1, selected: 4})
	if !l.tabbed || len(l.panes) != 1 || l.panes[0].index != 4 || l.panes[0].outer != uv.Rect(60, 1, 90, 20) {
		t.Fatalf("layout = %+v", l)
	}
	l = computeLayout(layoutInput{width: 150, height: 24, panes: 5, editorLines: 1, selected: 2, zoomed: true})
	if l.conv != (uv.Rectangle{}) || len(l.panes) != 1 || l.panes[0] != (paneRect{2, uv.Rect(0, 0, 150, 21)}) {
		t.Fatalf("zoomed layout = %+v", l)
	}
	// A tiny window never yields empty or negative regions.
	l = computeLayout(layoutInput{width: 3, height: 2, panes: 1, editorLines: 1, selected: 0})
	if l.status.Dy() != 1 || paneSize(l.panes[0].outer).Cols < 1 || paneSize(l.panes[0].outer).Rows < 1 {
		t.Fatalf("tiny layout = %+v", l)
	}
}
