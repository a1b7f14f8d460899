package programs

import (
	"strings"
)

func sedLaunchFor(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	return sedLaunch(args, hit)
}

// sedLaunch allows only sed scripts made of line addresses with p/d/q/n/=, and s commands whose
// flags cannot execute (e) or write (w); -i, -f and anything else is at least ask. Options
// are read as GNU sed reads them: long names abbreviated (--in-pl, --expr=…), short letters
// bundled (-nes/a/b/e, -ni), and options after operands (sed p f -i).
func sedLaunch(args []string, hit func(opt, why string) (Hit, bool)) (Hit, bool) {
	var scripts, operands []string
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, val, has := strings.Cut(a, "=")
			switch {
			case longAbbrev(name, "--in-place"):
				return hit("-i", "edits files in place")
			case longAbbrev(name, "--file"):
				return hit("-f", "reads a sed script from a file, which cannot be checked")
			case longAbbrev(name, "--expression"):
				explicit = true
				if !has && i+1 < len(args) {
					i++
					val, has = args[i], true
				}
				if has {
					scripts = append(scripts, val)
				}
			case longAbbrev(name, "--line-length"):
				if !has {
					i++
				}
			}
		case len(a) > 1 && a[0] == '-':
		letters:
			for k := 1; k < len(a); k++ {
				switch a[k] {
				case 'i':
					return hit("-i", "edits files in place")
				case 'f':
					return hit("-f", "reads a sed script from a file, which cannot be checked")
				case 'e', 'l':
					val := a[k+1:]
					if val == "" && i+1 < len(args) {
						i++
						val = args[i]
					}
					if a[k] == 'e' {
						explicit = true
						scripts = append(scripts, val)
					}
					break letters
				}
			}
		default:
			operands = append(operands, a)
		}
	}
	if !explicit && len(operands) > 0 {
		scripts = append(scripts, operands[0])
	}
	for _, s := range scripts {
		if s == Dynamic || !sedSafe(s) {
			return hit("script", "may execute (e) or write (w, W) files; only addresses with p/d/q/n/= and s///[gpI0-9] are allowed")
		}
	}
	return Hit{}, false
}

// sedSafe checks one sed script conservatively.
func sedSafe(s string) bool {
	for _, cmd := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
		cmd = strings.TrimSpace(cmd)
		if cmd == "" {
			continue
		}
		// Strip a line address: N, $, N,M, /re/ is not supported (it may contain anything).
		j := 0
		for j < len(cmd) && (cmd[j] >= '0' && cmd[j] <= '9' || cmd[j] == '$' || cmd[j] == ',' || cmd[j] == '~' || cmd[j] == '!') {
			j++
		}
		rest := strings.TrimSpace(cmd[j:])
		switch {
		case rest == "p" || rest == "d" || rest == "q" || rest == "n" || rest == "=" || rest == "P" || rest == "N" || rest == "":
			continue
		case len(rest) > 1 && rest[0] == 's':
			d := rest[1]
			if d == '\\' || d == '\n' || d == ' ' {
				return false
			}
			parts := splitUnescaped(rest[2:], d)
			if len(parts) != 3 {
				return false
			}
			for _, f := range parts[2] {
				if !(f == 'g' || f == 'p' || f == 'I' || f == 'i' || f >= '0' && f <= '9') {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// splitUnescaped splits s at unescaped occurrences of d.
func splitUnescaped(s string, d byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == d {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func init() {
	register(&Spec{Names: []string{"sed"}, Launch: sedLaunchFor, DynamicArgs: true, Examples: []Example{
		{Line: "sed -n '1,20p' main.go", Want: "allow"},
		{Line: "sed 's/a/b/g' f", Want: "allow"},
		{Line: "sed -n '1e id' f", Want: "ask", Reason: "sed script may execute"},
		{Line: "sed 's/x/y/w /etc/x' f", Want: "ask", Reason: "sed script may execute (e) or write"},
		{Line: "sed -i 's/a/b/' f", Want: "ask", Reason: "sed -i edits files in place"},
		{Line: "sed --in-pl 's/a/b/' f", Want: "ask", Reason: "sed -i"},
		{Line: "sed -ni p f", Want: "ask", Reason: "sed -i"},
		{Line: "sed -f script.sed f", Want: "ask", Reason: "sed -f reads a sed script from a file"},
		{Line: "sed p f -i", Want: "ask", Reason: "sed -i"},
	}})
}
