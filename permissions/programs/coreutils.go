package programs

import (
	"path"
	"strings"
)

// knownWriters are programs whose file arguments are written (created, replaced, moved, linked,
// chmod'ed or removed). Their targets are checked like redirect targets: outside the
// roots or protected (.git/**, rc files …) is deny, whatever the allow rules say. valueOpts are
// the short options that take a separate value; targetOpt is the "-t DIR" style option.
var knownWriters = map[string]struct {
	valueOpts string // short options followed by a value word
	mode      string // "last": only the last operand (or -t DIR) is written; "all": every operand; "skip1": all but the first (mode/owner)
}{
	"cp":       {"St", "last"},
	"ln":       {"St", "last"},
	"install":  {"mgoSt", "last"},
	"mv":       {"St", "all"},
	"touch":    {"rdt", "all"},
	"mkdir":    {"m", "all"},
	"rm":       {"", "all"},
	"rmdir":    {"", "all"},
	"unlink":   {"", "all"},
	"tee":      {"", "all"},
	"truncate": {"sr", "all"},
	"shred":    {"nsu", "all"},
	"chmod":    {"", "skip1"},
	"chown":    {"", "skip1"},
	"chgrp":    {"", "skip1"},
	"dd":       {"", "dd"},
	"sort":     {"otTSk", "sort"},
}

// writerTargets returns the files a well-known writer (knownWriters) writes, from its
// arguments; a word only known at run time may be the target (Targets.Dynamic).
func writerTargets(tool string, args []Arg) Targets {
	spec, ok := knownWriters[tool]
	if !ok {
		return Targets{}
	}
	var t Targets
	var operands, targets []string
	ref := false // chmod/chown --reference: no mode/owner operand
	modeSeen := false
	opts := true
	noteDyn := func() { t.Dynamic = true }
	words := append([]Arg{{}}, args...) // words[0] stands for the program
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w.Dyn {
			noteDyn()
			operands = append(operands, "") // unknown; the static words are still checked
			continue
		}
		s := w.S
		if opts && s == "--" {
			opts = false
			continue
		}
		if opts && tool == "chmod" && len(s) > 1 && s[0] == '-' && strings.Trim(s[1:], "rwxXst") == "" {
			modeSeen = true // chmod -x FILE: the mode looks like an option
			continue
		}
		if opts && strings.HasPrefix(s, "--") {
			// GNU getopt_long: any abbreviation of a long option (--target-dir, --outp=).
			name, val, hasVal := strings.Cut(s, "=")
			switch {
			case longAbbrev(name, "--target-directory") && tool != "touch" && tool != "sort":
				if !hasVal && i+1 < len(words) {
					i++
					val = words[i].S
					if words[i].Dyn {
						noteDyn()
					}
				}
				targets = append(targets, val)
			case (longAbbrev(name, "--output") || longAbbrev(name, "--temporary-directory")) && tool == "sort":
				// sort -o FILE, and -T DIR where its temporary files go.
				if !hasVal && i+1 < len(words) {
					i++
					val = words[i].S
					if words[i].Dyn {
						noteDyn()
					}
				}
				targets = append(targets, val)
			case longAbbrev(name, "--reference"):
				ref = true
			}
			continue
		}
		if opts && len(s) > 1 && s[0] == '-' {
			for k := 1; k < len(s); k++ {
				if strings.IndexByte(spec.valueOpts, s[k]) < 0 {
					continue
				}
				val := s[k+1:]
				isTarget := s[k] == 't' && tool != "touch" && tool != "sort" || (s[k] == 'o' || s[k] == 'T') && tool == "sort"
				if val == "" && i+1 < len(words) {
					i++
					val = words[i].S
					if words[i].Dyn && isTarget {
						noteDyn()
					}
				}
				if isTarget {
					targets = append(targets, val)
				}
				break
			}
			continue
		}
		operands = append(operands, s)
	}
	var entries map[int]bool // indexes into targets of directory entries removed or moved as such
	switch spec.mode {
	case "last":
		if len(targets) == 0 && len(operands) > 0 {
			last := operands[len(operands)-1]
			if len(operands) == 1 && tool == "ln" {
				last = path.Base(last) // ln TARGET makes ./basename
			}
			targets = append(targets, last)
		}
	case "all":
		// rm, unlink and mv's sources remove or move the directory entry itself: a symlink
		// among them is judged by where the link is, not where it points (checkEntry). mv's
		// destination (its last operand without -t) follows links like any write.
		firstEntry := len(targets)
		targets = append(targets, operands...)
		if tool == "rm" || tool == "unlink" || tool == "mv" {
			nEntries := len(operands)
			if tool == "mv" && firstEntry == 0 && nEntries > 0 {
				nEntries-- // no -t: the last operand is the destination
			}
			entries = make(map[int]bool, nEntries)
			for k := 0; k < nEntries; k++ {
				entries[firstEntry+k] = true
			}
		}
	case "skip1":
		if !ref && !modeSeen && len(operands) > 0 {
			operands = operands[1:]
		}
		targets = append(targets, operands...)
	case "dd":
		for _, o := range operands {
			if v, ok := strings.CutPrefix(o, "of="); ok {
				targets = append(targets, v)
			}
		}
	}
	t.Paths, t.Entries = targets, entries
	return t
}

func init() {
	for _, n := range []string{"cp", "ln", "mv", "touch", "mkdir", "rm", "rmdir", "unlink", "tee", "truncate", "shred", "chmod", "chown", "chgrp", "dd"} {
		s := &Spec{Names: []string{n}, Writes: writerTargets}
		switch n {
		case "cp":
			s.Examples = []Example{
				{Line: "cp a b && cp -t dir a b", Want: "allow"},
				{Line: "cp x .git/hooks/pre-commit", Want: "deny", Reason: "cp writes .git/hooks/pre-commit"},
				{Line: "cp x y --target-directory=.git", Want: "deny", Reason: "protected path"},
				{Line: "cp x /tmp/y", Want: "deny", Reason: "cp writes /tmp/y"},
				{Line: "cp x /dev/stdout", Want: "ask", Reason: "re-opens whatever file sits behind a file descriptor"},
			}
		case "rm":
			s.Examples = []Example{
				{Line: "rm -f out.txt", Want: "allow"},
				{Line: "rm -rf .git", Want: "deny", Reason: "rm writes .git"},
			}
		case "tee":
			s.Examples = []Example{
				{Line: "echo x | tee out.txt", Allow: []string{"tee", "echo"}, Want: "allow"},
				{Line: "echo x | tee /dev/fd/3", Allow: []string{"tee", "echo"}, Want: "ask", Reason: "/dev/fd/3 re-opens"},
				{Line: "echo x | tee -a ~/.bashrc", Allow: []string{"tee", "echo"}, Want: "deny", Reason: "outside the roots"},
			}
		case "dd":
			s.Examples = []Example{{Line: "dd if=a of=.git/hooks/x", Want: "deny", Reason: "dd writes .git/hooks/x"}}
		}
		register(s)
	}
}
