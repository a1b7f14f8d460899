package programs

import (
	"path"
	"strings"
)

// tarWrites returns where a tar command writes, from its static words (GNU tar option
// spelling: old-style key bundle "xCf DIR FILE", bundled dash options, long options and their
// abbreviations, with the value after "=" or in the next word): the -f/--file archive of
// create/append/update/catenate/--delete, the -C/--directory of an extraction (each -C
// relative to the one before), -g/--listed-incremental, --index-file and --volno-file, and
// --one-top-level=DIR, and with --remove-files the files archived (deleted afterwards). Without a mode option every -f and -C counts (only stricter). A word only
// known at run time sets Targets.Dynamic and is skipped. "-" (stdin/stdout) is not a target.
func tarWrites(_ string, args []Arg) Targets {
	const valueLetters = "bCfFgHIKLNTVX" // short options that take a value (tar --help)
	var files, dirs, always, operands []string
	modes := map[string]bool{}
	removeFiles := false
	dyn := false
	curDir := ""
	add := func(letter byte, v string, isDyn bool) {
		if isDyn {
			dyn = true
			return
		}
		switch letter {
		case 'f':
			if v != "-" {
				files = append(files, v)
			}
		case 'C':
			if curDir != "" && !path.IsAbs(v) {
				v = path.Join(curDir, v)
			}
			curDir = v
			dirs = append(dirs, v)
		case 'g':
			always = append(always, v)
		}
	}
	shortMode := func(c byte) {
		if strings.IndexByte("crutAxd", c) >= 0 {
			modes[string(c)] = true
		}
	}
	rest := args
	// Old-style key: a first word without a dash is a bundle of letters whose values are the
	// words that follow it, in order.
	if len(rest) > 0 && !rest[0].Dyn && rest[0].S != "" && rest[0].S[0] != '-' {
		key, vals := rest[0].S, rest[1:]
		vi := 0
		for k := 0; k < len(key); k++ {
			shortMode(key[k])
			if strings.IndexByte(valueLetters, key[k]) >= 0 && vi < len(vals) {
				add(key[k], vals[vi].S, vals[vi].Dyn)
				vi++
			}
		}
		rest = vals[vi:]
	}
	longModes := []struct{ full, mode string }{
		{"--create", "c"}, {"--append", "r"}, {"--update", "u"}, {"--catenate", "A"}, {"--concatenate", "A"},
		{"--delete", "delete"}, {"--extract", "x"}, {"--get", "x"}, {"--list", "t"}, {"--diff", "d"}, {"--compare", "d"},
	}
	longVals := []struct {
		full   string
		letter byte // 'f', 'C', 'g' (always a target), 0 (a value that is not a target); optional values, only after "=": 'o' (a target), 'n' (not)
	}{
		{"--file", 'f'}, {"--directory", 'C'}, {"--listed-incremental", 'g'}, {"--index-file", 'g'}, {"--volno-file", 'g'},
		{"--files-from", 0}, {"--exclude-from", 0}, {"--exclude", 0}, {"--transform", 0}, {"--xform", 0},
		{"--owner", 0}, {"--group", 0}, {"--mode", 0}, {"--mtime", 0}, {"--format", 0}, {"--label", 0},
		{"--blocking-factor", 0}, {"--record-size", 0}, {"--tape-length", 0}, {"--starting-file", 0},
		{"--newer-mtime", 0}, {"--after-date", 0}, {"--suffix", 0}, {"--backup", 'n'}, {"--one-top-level", 'o'},
	}
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if w.Dyn {
			dyn = true
			continue
		}
		s := w.S
		if s == "--" {
			break
		}
		if strings.HasPrefix(s, "--") {
			name, val, hasVal := strings.Cut(s, "=")
			matched := false
			for _, lv := range longVals {
				if !longAbbrev(name, lv.full) {
					continue
				}
				matched = true
				if lv.letter == 'o' || lv.letter == 'n' { // optional value: only after "="
					if hasVal && lv.letter == 'o' {
						always = append(always, val)
					}
					break
				}
				isDyn := false
				if !hasVal && i+1 < len(rest) {
					i++
					val, isDyn = rest[i].S, rest[i].Dyn
				} else if !hasVal {
					break
				}
				add(lv.letter, val, isDyn)
				break
			}
			if !matched && longAbbrev(name, "--remove-files") {
				removeFiles, matched = true, true
			}
			if !matched {
				for _, lm := range longModes {
					if longAbbrev(name, lm.full) {
						modes[lm.mode] = true
						break
					}
				}
			}
			continue
		}
		if len(s) < 2 || s[0] != '-' {
			// An operand: a member name, or a file to archive (relative to the -C before it).
			if curDir != "" && !path.IsAbs(s) {
				s = path.Join(curDir, s)
			}
			operands = append(operands, s)
			continue
		}
		for k := 1; k < len(s); k++ {
			shortMode(s[k])
			if strings.IndexByte(valueLetters, s[k]) < 0 {
				continue
			}
			val, isDyn := s[k+1:], false
			if val == "" {
				if i+1 >= len(rest) {
					break
				}
				i++
				val, isDyn = rest[i].S, rest[i].Dyn
			}
			add(s[k], val, isDyn)
			break
		}
	}

	noMode := len(modes) == 0
	targets := always
	if noMode || modes["c"] || modes["r"] || modes["u"] || modes["A"] || modes["delete"] {
		targets = append(targets, files...)
	}
	if noMode || modes["x"] {
		targets = append(targets, dirs...)
	}
	if removeFiles {
		targets = append(targets, operands...) // --remove-files deletes what it archived
	}
	return Targets{Paths: targets, Dynamic: dyn}
}
