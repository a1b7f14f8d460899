package permissions

import (
	"fmt"
	"path"
	"strings"

	"github.com/acpterm/acpterm/config"
)

func init() { config.RuleCheck = ruleCheck }

// ruleCheck rejects config entries this engine would never honour (see config.RuleCheck): an
// env allow entry matched by extraEnvDeny. "" when the entry is fine. An allow rule for a
// program that executes workspace code (make, npm run, go test …) is not rejected: a session
// whose commands run confined by the OS sandbox honours it; elsewhere the engine asks at run
// time, saying why (decideLeaf).
func ruleCheck(key, entry string) string {
	switch key {
	case "policy.env.allow":
		for _, d := range extraEnvDeny {
			if ok, _ := path.Match(strings.ToUpper(d), strings.ToUpper(entry)); ok {
				return fmt.Sprintf("%q has no effect: it is on acpterm's built-in env deny list as %q (it can make an allowed program run other code), and deny beats allow; remove it", entry, d)
			}
		}
	}
	return ""
}
