package permissions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Explain decides r like DecideCommand and returns the Decision as one indented JSON object
// (for `acpterm policy check`): "verdict", "rule", "reason", "leaves" (each with its argv,
// resolved program, wrapper chain, own verdict, rule and reason), "constructs", "argv", "shell",
// "cwd", "env_added", "output_limit" and "grant". Environment values are never included. Shell
// text is kept readable (`<`, `>` and `&` are not escaped as \u003c…). The error is non-nil only
// if JSON encoding fails.
func (e *Engine) Explain(r CommandRequest) ([]byte, error) {
	d := e.DecideCommand(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ExplainText decides r like DecideCommand and returns the Decision for a person to read (the
// default of `acpterm policy check`): the verdict, the deciding rule and reason, what would run
// and where, the constructs that raised the verdict, then each leaf with its own verdict, rule
// and reason. Text with control characters is shown quoted.
func (e *Engine) ExplainText(r CommandRequest) string {
	return FormatDecision(e.DecideCommand(r))
}

// FormatDecision renders d as ExplainText does; the last line ends in "\n".
func FormatDecision(d Decision) string {
	var b strings.Builder
	field := func(label, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-11s %s\n", label+":", printable(v))
		}
	}
	field("verdict", string(d.Verdict))
	field("rule", d.Rule)
	field("reason", d.Reason)
	if d.JudgedFrom != "" {
		field("judged", d.Judged+" (from "+d.JudgedFrom+")")
	}
	if len(d.Argv) > 0 {
		words := make([]string, len(d.Argv))
		for i, w := range d.Argv {
			words[i] = shellQuote(w)
		}
		field("runs", strings.Join(words, " "))
	}
	field("cwd", d.Cwd)
	if len(d.EnvAdded) > 0 {
		field("env added", strings.Join(d.EnvAdded, " "))
	}
	if len(d.Constructs) > 0 {
		field("constructs", strings.Join(d.Constructs, ", "))
	}
	if d.Grant != "" {
		field("grant", d.Grant)
	}
	if len(d.Leaves) > 0 {
		fmt.Fprintf(&b, "leaves:\n")
	}
	for i, l := range d.Leaves {
		via := ""
		if len(l.Via) > 0 {
			via = "  (via " + strings.Join(l.Via, " → ") + ")"
		}
		fmt.Fprintf(&b, "  %d. %-5s %s%s\n", i+1, l.Verdict, printable(strings.Join(l.Argv, " ")), printable(via))
		fmt.Fprintf(&b, "           %s: %s\n", printable(l.Rule), printable(l.Reason))
	}
	return b.String()
}

// printable returns s, or s quoted when it holds control characters that would act on the
// terminal.
func printable(s string) string {
	if _, bad := controlChar(s); bad || strings.ContainsAny(s, "\n\t") {
		return strconv.Quote(s)
	}
	return s
}

// shellQuote quotes w for a shell when it is not a plain word.
func shellQuote(w string) string {
	if w != "" && !strings.ContainsAny(w, shellLineChars) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
