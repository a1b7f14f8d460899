package permissions

import (
	"bytes"
	"encoding/json"
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
