package permissions

import (
	"fmt"
	"path"
	"strings"

	"github.com/acpterm/acpterm/config"
)

func init() { config.RuleCheck = ruleCheck }

// ruleCheck rejects config entries this engine would never honour (see config.RuleCheck): an
// allow rule every command of which is a build runner (decideLeaf asks about build runners
// whatever the allow rules say, and grants for them are refused), and an env allow entry
// matched by ExtraEnvDeny. "" when the entry is fine.
func ruleCheck(key, entry string) string {
	switch key {
	case "policy.commands.allow":
		r, err := parseRule(entry)
		if err != nil || len(r.words) == 0 {
			return "" // the config loader reports malformed rules itself
		}
		if path.Base(r.words[0]) == "yarn" && len(r.words) == 1 {
			return "" // yarn alone also covers yarn info, yarn why …
		}
		if why, ok := buildRunner(r.words); ok {
			return fmt.Sprintf("allow rule %q has no effect: %s is a build runner, which %s, so acpterm always asks before it runs; remove it or move it to ask",
				entry, strings.TrimSpace(why.rule), strings.TrimPrefix(why.reason, why.rule+" "))
		}
	case "policy.env.allow":
		for _, d := range ExtraEnvDeny {
			if ok, _ := path.Match(strings.ToUpper(d), strings.ToUpper(entry)); ok {
				return fmt.Sprintf("%q has no effect: it is on acpterm's built-in env deny list as %q (it can make an allowed program run other code), and deny beats allow; remove it", entry, d)
			}
		}
	}
	return ""
}
