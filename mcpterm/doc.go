// Package mcpterm is acpterm's MCP terminal service: it offers the session's terminals to the
// agent as MCP tools (terminal_start, terminal_snapshot, terminal_input, terminal_resize,
// terminal_list, terminal_close), with the names, arguments, results, errors and limits of
// terminal-emulator-mcp, so an agent can drive REPLs, debuggers, editors and installers that
// ask questions, and read their styled screens.
//
// Unlike a stand-alone terminal MCP server, every terminal_start goes through a [Launcher]
// that acpterm wires to the same decision and approval path as ACP terminal/create (the
// policy decides; "ask" shows the user the approval dialog and the tool call waits; a refusal
// is a POLICY_DENIED tool error naming the rule), and every terminal is an ordinary
// terminals.Terminal: it runs under the sandbox, is a pane the user sees and may type into,
// counts toward max_terminals and ends with the session.
//
// Screens come from terminals.Screen.Snapshot; settlement ("settled") is decided by polling
// the screen's fingerprint (terminals.Screen.Fingerprint): identical repaints and scroll-back
// changes do not reset the quiet interval, output still waiting to be parsed and a
// synchronized redraw (mode 2026) prevent it.
//
// [Service.NewServer] gives one MCP server per connection (its own set of at most eight
// terminals, closed when the connection ends); [Service.Serve] runs one over a stream.
package mcpterm
