package ui

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// maxCompletions bounds the candidates listed for one Tab (directory entries read).
const maxCompletions = 200

// completion is the state of Tab completion in the editor: the candidates for the word being
// completed and which one is inserted now (cycled by repeated Tab).
type completion struct {
	items  []string
	idx    int
	start  int    // rune column where the word starts
	row    int    // editor row of the word
	insert string // the text currently inserted for the word
}

func (c *completion) active() bool { return len(c.items) > 1 }
func (c *completion) clear()       { *c = completion{} }

// commandCandidates lists "/name" for the agent's commands starting with prefix (which includes
// the slash), sorted.
func commandCandidates(cmds []acp.AvailableCommand, prefix string) []string {
	var out []string
	for _, c := range cmds {
		n := "/" + sanitizeLine(c.Name)
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// fileCandidates completes an "@path" word against the file system: relative paths resolve
// against cwd; only directories inside one of roots are listed (others give no candidates).
// Directories get a trailing "/". Hidden entries are listed only when the typed name starts with
// ".". It returns "@"-prefixed candidates, sorted, at most maxCompletions; spaces in names are
// written "\ " (acpclient reads a mention the same way).
func fileCandidates(word, cwd string, roots []string) []string {
	rel := strings.ReplaceAll(strings.TrimPrefix(word, "@"), `\ `, " ")
	dirPart, base := "", rel
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		dirPart, base = rel[:i+1], rel[i+1:]
	}
	abs := dirPart
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, dirPart)
	}
	abs = filepath.Clean(abs)
	if !insideRoots(abs, roots) {
		return nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil
	}
	defer f.Close()
	ents, err := f.ReadDir(maxCompletions * 4)
	if err != nil && len(ents) == 0 {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		c := "@" + strings.ReplaceAll(dirPart+n, " ", `\ `) // spaces escaped: the mention stays one word
		if e.IsDir() {
			c += "/"
		}
		out = append(out, c)
	}
	sort.Strings(out)
	if len(out) > maxCompletions {
		out = out[:maxCompletions]
	}
	return out
}

// insideRoots reports whether path is one of roots or below one.
func insideRoots(path string, roots []string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r, path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// commonPrefix is the longest common prefix of items.
func commonPrefix(items []string) string {
	if len(items) == 0 {
		return ""
	}
	p := items[0]
	for _, s := range items[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// complete handles Tab in the editor: a "/command" as the first word of the prompt or an
// "@path" word before the cursor. The first Tab inserts the only candidate (plus a space, or
// nothing after a directory) or the candidates' common prefix; further Tabs cycle through them.
func (e *editor) complete(c *completion, cmds []acp.AvailableCommand, cwd string, roots []string) {
	word, start := e.wordBeforeCursor()
	if c.active() && c.row == e.row && c.start == start && word == c.insert {
		c.idx = (c.idx + 1) % len(c.items)
		c.insert = c.items[c.idx]
		e.replaceWord(start, c.insert)
		return
	}
	c.clear()
	var items []string
	switch {
	case strings.HasPrefix(word, "/") && e.row == 0 && start == 0:
		items = commandCandidates(cmds, word)
	case strings.HasPrefix(word, "@"):
		items = fileCandidates(word, cwd, roots)
	}
	switch len(items) {
	case 0:
		return
	case 1:
		ins := items[0]
		if !strings.HasSuffix(ins, "/") {
			ins += " "
		}
		e.replaceWord(start, ins)
		return
	}
	*c = completion{items: items, idx: -1, start: start, row: e.row}
	p := commonPrefix(items)
	if len(p) > len(word) {
		e.replaceWord(start, p)
		word = p
	}
	c.insert = word
}
