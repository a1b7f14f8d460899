package programs

import "strings"

// valueTargets returns as written files the values of the options in longs (--name=V,
// --name V, and an abbreviation of the name with "=V") and of the short letters in shorts
// (-xV, -x V), up to "--". A value only known at run time sets Targets.Dynamic.
func valueTargets(args []Arg, longs []string, shorts string) Targets {
	var t Targets
	add := func(a Arg) {
		if a.Dyn {
			t.Dynamic = true
		} else {
			t.Paths = append(t.Paths, a.S)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dyn {
			continue // a dynamic word is already at least ask (DynamicArgs)
		}
		if a.S == "--" {
			break
		}
		if strings.HasPrefix(a.S, "--") {
			name, v, hasV := strings.Cut(a.S, "=")
			for _, l := range longs {
				switch {
				case name == l && !hasV && i+1 < len(args):
					i++
					add(args[i])
				case hasV && longAbbrev(name, l):
					t.Paths = append(t.Paths, v)
				default:
					continue
				}
				break
			}
			continue
		}
		if len(a.S) >= 2 && a.S[0] == '-' && strings.IndexByte(shorts, a.S[1]) >= 0 {
			switch {
			case len(a.S) > 2:
				t.Paths = append(t.Paths, a.S[2:])
			case i+1 < len(args):
				i++
				add(args[i])
			}
		}
	}
	return t
}

// operandTarget returns the n-th operand (from 0) as a written file: options are the words
// starting with "-" (the ones named by valueOpt take the next word unless their value is in
// the same word), and every word after "--" is an operand. An operand only known at run time
// at or before position n sets Targets.Dynamic.
func operandTarget(args []Arg, n int, valueOpt func(word string) bool) Targets {
	var t Targets
	eachOperand(args, valueOpt, func(k int, a Arg) bool {
		switch {
		case a.Dyn:
			t.Dynamic = true
			return false
		case k == n:
			t.Paths = append(t.Paths, a.S)
			return false
		}
		return true
	})
	return t
}

// operandsFrom returns every operand of args from the n-th (0-based) on as written files (the
// options as for operandTarget); an operand only known at run time among them sets
// Targets.Dynamic.
func operandsFrom(args []Arg, n int, valueOpt func(word string) bool) Targets {
	var t Targets
	eachOperand(args, valueOpt, func(k int, a Arg) bool {
		switch {
		case k < n:
		case a.Dyn:
			t.Dynamic = true
		default:
			t.Paths = append(t.Paths, a.S)
		}
		return true
	})
	return t
}

// eachOperand calls fn with each operand of args and its position (from 0), until fn returns
// false: options are the words starting with "-" (the ones named by valueOpt take the next
// word), every word after "--" is an operand, and a word only known at run time is one.
func eachOperand(args []Arg, valueOpt func(word string) bool, fn func(k int, a Arg) bool) {
	k, opts := 0, true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if opts && !a.Dyn {
			if a.S == "--" {
				opts = false
				continue
			}
			if len(a.S) > 1 && a.S[0] == '-' {
				if valueOpt(a.S) {
					i++
				}
				continue
			}
		}
		if !fn(k, a) {
			return
		}
		k++
	}
}
