package programs

import "strings"

// Option spelling as GNU getopt_long (and argp, which uses it) accepts it, for the per-program
// option tables (launchOption, writeTargets, the wrappers):
//
//   - a long option may be abbreviated to any prefix of at least one character after "--"; an
//     exact match of another option wins, and a prefix shared by several options is an error
//     (the program does not run). The tables only know the options they care about, so an
//     abbreviation of a dangerous option is taken as that option even when the real program
//     might call it ambiguous: that is only stricter.
//   - the value of a long option follows "=" or is the next word;
//   - short options bundle (-xvI PROG, -xvIPROG): a letter that takes a value takes the rest of
//     the word, or the next word when it ends the word; letters before it are options too.
//   - options and operands may be mixed (argument permutation) until "--".

// longAbbrev reports whether word spells the long option full ("--to-command"): the exact name
// or an abbreviation of at least one character after "--", with or without "=value".
func longAbbrev(word, full string) bool {
	if !strings.HasPrefix(word, "--") {
		return false
	}
	name, _, _ := strings.Cut(word, "=")
	return len(name) > 2 && strings.HasPrefix(full, name)
}

// longAbbrevAny returns the first of fulls that word spells (see longAbbrev), minus any name in
// exact that word names exactly (an exact match of another option wins over an abbreviation).
func longAbbrevAny(word string, fulls []string, exact ...string) (string, bool) {
	name, _, _ := strings.Cut(word, "=")
	for _, e := range exact {
		if name == e {
			return "", false
		}
	}
	for _, f := range fulls {
		if longAbbrev(word, f) {
			return f, true
		}
	}
	return "", false
}

// getoptSpec is what scanOptions needs to know about a program's command line.
type getoptSpec struct {
	shortVal string   // short letters that take a required value (rest of the word or next word)
	shortOpt string   // short letters with an optional value (only the rest of the word)
	longVal  []string // long options whose value may be the next word (full names; exact spelling only)
}

// scanOptions walks args like GNU getopt_long with permutation, calling fn for every option it
// finds: for a short letter "-x" with its value (if the letter takes one), for a long option
// the word's name as written ("--to-comm") with its "=value" or, for an exact longVal name, the
// next word. It stops at "--" or when fn returns true. Operands are skipped.
//
// An abbreviated long option never consumes the next word here, so a word the real program
// would take as its value is scanned as an option or operand too: only stricter.
func scanOptions(args []string, spec getoptSpec, fn func(opt, val string, hasVal bool) bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return
		}
		if strings.HasPrefix(a, "--") {
			name, val, has := strings.Cut(a, "=")
			if !has {
				for _, l := range spec.longVal {
					if name == l && i+1 < len(args) {
						i++
						val, has = args[i], true
						break
					}
				}
			}
			if fn(name, val, has) {
				return
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		for k := 1; k < len(a); k++ {
			c := a[k]
			switch {
			case strings.IndexByte(spec.shortVal, c) >= 0:
				val, has := a[k+1:], true
				if val == "" {
					if i+1 < len(args) {
						i++
						val = args[i]
					} else {
						has = false
					}
				}
				if fn("-"+string(c), val, has) {
					return
				}
				k = len(a)
			case strings.IndexByte(spec.shortOpt, c) >= 0:
				if fn("-"+string(c), a[k+1:], k+1 < len(a)) {
					return
				}
				k = len(a)
			default:
				if fn("-"+string(c), "", false) {
					return
				}
			}
		}
	}
}

// findOption returns the first option in args that is one of the short letters in shorts or
// spells (longAbbrev) one of longs, with exact names in notLong excluded (see longAbbrevAny).
// The result is the option as the table names it ("-I", "--to-command").
func findOption(args []string, spec getoptSpec, shorts string, longs []string, notLong ...string) (string, bool) {
	found := ""
	scanOptions(args, spec, func(opt, _ string, _ bool) bool {
		if strings.HasPrefix(opt, "--") {
			if f, ok := longAbbrevAny(opt, longs, notLong...); ok {
				found = f
				return true
			}
			return false
		}
		if strings.IndexByte(shorts, opt[1]) >= 0 {
			found = opt
			return true
		}
		return false
	})
	return found, found != ""
}

// LongAbbrev reports whether word spells the long option full (see longAbbrev).
func LongAbbrev(word, full string) bool { return longAbbrev(word, full) }

// LongAbbrevAny returns the first of fulls that word spells (see longAbbrevAny).
func LongAbbrevAny(word string, fulls []string, exact ...string) (string, bool) {
	return longAbbrevAny(word, fulls, exact...)
}
