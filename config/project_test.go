package config

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestProjectTightens(t *testing.T) {
	home, cwd, e := sandbox(t)
	user := filepath.Join(home, "c.toml")
	writeFile(t, user, "[policy]\nunmatched = \"ask\"\n[policy.fs]\nread = \"allow\"\nwrite = \"ask\"\n")
	proj := filepath.Join(cwd, ProjectFileName)
	writeFile(t, proj, `[policy]
unmatched = "deny"
output_byte_limit = 1024
max_terminals = 2
kill_grace = "1s"
[policy.commands]
ask = ["make"]
deny = ["git push", "curl"]
[policy.env]
deny = ["AWS_*"]
[policy.fs]
read = "ask"
write = "deny"
deny_read = ["secrets/**"]
deny_write = ["~/notes/**"]
`)
	cfg, err := Load(LoadOptions{Path: user, Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Project != proj || cfg.Source != user {
		t.Errorf("Project=%q Source=%q", cfg.Project, cfg.Source)
	}
	p := cfg.Policy
	if p.Unmatched != "deny" || p.OutputByteLimit != 1024 || p.MaxTerminals != 2 || p.KillGrace.String() != "1s" {
		t.Errorf("scalars %q %d %d %s", p.Unmatched, p.OutputByteLimit, p.MaxTerminals, p.KillGrace)
	}
	if !slices.Equal(p.Commands.Ask, []string{"make"}) || !slices.Contains(p.Commands.Deny, "git push") || !slices.Contains(p.Commands.Deny, "sudo") {
		t.Errorf("commands %+v", p.Commands)
	}
	if !slices.Equal(p.Commands.Allow, BuiltinAllow()) {
		t.Errorf("allow changed: %q", p.Commands.Allow)
	}
	if p.FS.Read != "ask" || p.FS.Write != "deny" || !slices.Equal(p.FS.DenyRead, []string{"secrets/**"}) ||
		!slices.Equal(p.FS.DenyWrite, []string{filepath.Join(home, "notes/**")}) {
		t.Errorf("fs %+v", p.FS)
	}
	if !slices.Contains(p.Env.Deny, "AWS_*") {
		t.Errorf("env deny %q", p.Env.Deny)
	}
}

func TestProjectTightensSandbox(t *testing.T) {
	_, cwd, e := sandbox(t)
	writeFile(t, filepath.Join(cwd, ProjectFileName), "[sandbox]\nmode = \"required\"\nnetwork = \"off\"\nagent = true\n")
	cfg, err := Load(LoadOptions{Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Sandbox; s.Mode != "required" || s.Network != "off" || !s.Agent || s.AgentWrite != nil {
		t.Errorf("sandbox %+v", s)
	}
}

func TestProjectWidenIsError(t *testing.T) {
	_, cwd, e := sandbox(t)
	proj := filepath.Join(cwd, ProjectFileName)
	cases := []struct{ name, doc, want string }{
		{"roots", "[policy]\nroots = [\"/\"]\n", proj + `:2:1: policy.roots: a project file (.acpterm.toml) may only tighten the policy; roots cannot be set`},
		{"allow", "[policy.commands]\ndeny = [\"rm\"]\nallow = [\"curl\"]\n", proj + `:3:1: policy.commands.allow: a project file (.acpterm.toml) may only tighten the policy; allow rules cannot be added`},
		{"env allow", "[policy.env]\nallow = [\"LD_PRELOAD\"]\n", proj + `:2:1: policy.env.allow: a project file (.acpterm.toml) may only tighten the policy; variables the agent may set cannot be added`},
		{"looser unmatched", "[policy]\nunmatched = \"allow\"\n", proj + `:2:1: policy.unmatched: a project file (.acpterm.toml) may only tighten the policy; "allow" is looser than the current "ask"`},
		{"looser write", "[policy.fs]\nwrite = \"allow\"\n", proj + `:2:1: policy.fs.write: a project file (.acpterm.toml) may only tighten the policy; "allow" is looser than the current "ask"`},
		{"bigger output", "[policy]\noutput_byte_limit = 2097152\n", proj + `:2:1: policy.output_byte_limit: a project file (.acpterm.toml) may only tighten the policy; 2097152 is larger than the current limit 1048576`},
		{"more terminals", "[policy]\nmax_terminals = 17\n", proj + `:2:1: policy.max_terminals: a project file (.acpterm.toml) may only tighten the policy; 17 is more than the current 16`},
		{"agent", "[agent]\ncommand = [\"evil\"]\n", proj + `:1:2: agent: a project file (.acpterm.toml) may only tighten the policy; [agent] cannot be set (it chooses the program acpterm runs)`},
		{"ui", "[ui.keys]\napprove_always = [\"enter\"]\n", proj + `:1:2: ui: a project file (.acpterm.toml) may only tighten the policy; [ui] cannot be set (key bindings decide what a keypress approves)`},
		{"bad value still checked", "[policy]\nunmatched = \"maybe\"\n", proj + `:2:13: policy.unmatched: must be "allow", "ask" or "deny", not "maybe"`},
		{"unknown key", "[policy]\nrootz = []\n", proj + `:2:1: policy.rootz: unknown key`},
		{"sandbox off", "[sandbox]\nmode = \"off\"\n", proj + `:2:1: sandbox.mode: a project file (.acpterm.toml) may only tighten the policy; "off" is looser than the current "auto"`},
		{"sandbox agent_write", "[sandbox]\nagent_write = [\"/x\"]\n", proj + `:2:1: sandbox.agent_write: a project file (.acpterm.toml) may only tighten the policy; it cannot add writable paths`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			writeFile(t, proj, c.doc)
			_, err := Load(LoadOptions{Cwd: cwd, Getenv: e.get})
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v\nwant  %s", err, c.want)
			}
		})
	}
}
