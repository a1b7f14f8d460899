package permissions

import "encoding/json"

// Explain decides r like DecideCommand and returns the Decision as one indented JSON object
// (for `acpterm policy check`): "verdict", "rule", "reason", "leaves" (each with its argv,
// resolved program, wrapper chain, own verdict, rule and reason), "constructs", "argv", "shell",
// "cwd", "env_added", "output_limit" and "grant". Environment values are never included. The
// error is non-nil only if JSON encoding fails.
func (e *Engine) Explain(r CommandRequest) ([]byte, error) {
	d := e.DecideCommand(r)
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
