package config

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/acpterm/acpterm/permissions/policy"
)

// shadowedAllow says why allow rule s can never take effect with the deny and ask rules in c
// (deny > ask > allow: a deny or ask rule whose words are a prefix of s's covers every command
// s covers), or "" when it can.
func shadowedAllow(s string, c Commands) string {
	words := strings.Fields(s)
	for _, l := range []struct {
		name  string
		rules []string
	}{{"deny", c.Deny}, {"ask", c.Ask}} {
		for _, r := range l.rules {
			rw := strings.Fields(r)
			if len(rw) == 0 || len(rw) > len(words) {
				continue
			}
			head := words[0] == rw[0] || !strings.Contains(rw[0], "/") && path.Base(words[0]) == rw[0]
			if !head || !slices.Equal(words[1:len(rw)], rw[1:]) {
				continue
			}
			src := ""
			if l.name == "deny" && slices.Contains(builtinDeny, r) {
				src = " (built in, cannot be removed)"
			}
			return fmt.Sprintf("allow rule %q has no effect: %s rule %q%s covers it (deny > ask > allow); remove it", s, l.name, r, src)
		}
	}
	return ""
}

// shadowedEnvAllow says why env allow glob g can never take effect with deny globs (deny beats
// allow; names compare without case), or "" when it can.
func shadowedEnvAllow(g string, deny []string) string {
	for _, d := range deny {
		if ok, _ := path.Match(strings.ToUpper(d), strings.ToUpper(g)); ok {
			src := ""
			if slices.Contains(policy.BuiltinEnvDeny(), d) {
				src = " (built in, cannot be removed: it can make an allowed program run other code)"
			}
			return fmt.Sprintf("%q has no effect: it is on the env deny list as %q%s, and deny beats allow; remove it", g, d, src)
		}
	}
	return ""
}
