package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
)

// ReadmeTOML returns the first ```toml block after the line heading in ../README.md. Exported
// for the verdict tests in package config_test.
func ReadmeTOML(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no %q heading", heading)
	}
	s = s[i:]
	start := strings.Index(s, "\n```toml\n")
	if start < 0 {
		t.Fatalf("README.md has no ```toml block after %q", heading)
	}
	s = s[start+len("\n```toml\n"):]
	end := strings.Index(s, "\n```\n")
	if end < 0 {
		t.Fatalf("README.md: the ```toml block after %q is not closed", heading)
	}
	return s[:end+1]
}

// nilKeys lists the TOML keys (dotted) that v, a file-shape struct, leaves absent.
func nilKeys(v reflect.Value, prefix string) []string {
	var out []string
	for i := 0; i < v.NumField(); i++ {
		f, ft := v.Field(i), v.Type().Field(i)
		key := prefix + strings.Split(ft.Tag.Get("toml"), ",")[0]
		switch {
		case f.IsNil():
			out = append(out, key)
		case f.Kind() == reflect.Pointer && f.Elem().Kind() == reflect.Struct:
			out = append(out, nilKeys(f.Elem(), key+".")...)
		}
	}
	return out
}

// The README's "Built-in defaults" block is the built-in configuration: it spells out every key
// that has a default, loading it changes nothing, and each of its lists is the built-in list
// exactly (a shorter list would not show in Load's result, because file lists extend).
func TestReadmeDefaults(t *testing.T) {
	block := ReadmeTOML(t, "### Built-in defaults")
	var fc fileConfig
	dec := toml.NewDecoder(strings.NewReader(block))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		t.Fatalf("README defaults block: %v\n%s", err, block)
	}
	if got, want := nilKeys(reflect.ValueOf(fc), ""), []string{"agent.command", "policy.roots", "policy.network.agent_allow", "ui.keys"}; !slices.Equal(got, want) {
		t.Errorf("README defaults block leaves out %q, want only %q (no default agent, roots = the session cwd, the agent's hosts built in per agent, no key overrides)", got, want)
	}

	home, cwd, e := sandbox(t)
	def, err := Load(LoadOptions{Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	if def.Source != DefaultsSource {
		t.Fatalf("Source = %q, want the built-in defaults", def.Source)
	}
	file := filepath.Join(home, "defaults.toml")
	writeFile(t, file, block)
	got, err := Load(LoadOptions{Path: file, Cwd: cwd, Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	got.Source, got.UserFile = def.Source, def.UserFile
	if !reflect.DeepEqual(got, def) {
		t.Errorf("loading the README defaults block changes the config:\n got %+v\nwant %+v", got, def)
	}
	p := fc.Policy
	for _, l := range []struct {
		key        string
		readme, is []string
	}{
		{"policy.commands.allow", *p.Commands.Allow, def.Policy.Commands.Allow},
		{"policy.commands.ask", *p.Commands.Ask, def.Policy.Commands.Ask},
		{"policy.commands.deny", *p.Commands.Deny, def.Policy.Commands.Deny},
		{"policy.env.deny", *p.Env.Deny, def.Policy.Env.Deny},
		{"policy.env.allow", *p.Env.Allow, def.Policy.Env.Allow},
		{"policy.fs.deny_read", *p.FS.DenyRead, def.Policy.FS.DenyRead},
		{"policy.fs.deny_write", *p.FS.DenyWrite, def.Policy.FS.DenyWrite},
		{"policy.network.allow", *p.Network.Allow, def.Policy.Network.Allow},
		{"policy.network.deny", *p.Network.Deny, def.Policy.Network.Deny},
	} {
		if !slices.Equal(l.readme, l.is) {
			t.Errorf("README %s = %q, built-in %q", l.key, l.readme, l.is)
		}
	}
}
