package config

import (
	"os"
	"path/filepath"
)

// home returns $HOME (via getenv), falling back to os.UserHomeDir; "" when neither is known.
func home(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

func orEnv(getenv func(string) string) func(string) string {
	if getenv == nil {
		return os.Getenv
	}
	return getenv
}

// ConfigDir is acpterm's config directory: $XDG_CONFIG_HOME/acpterm, or ~/.config/acpterm when
// XDG_CONFIG_HOME is unset or relative (XDG Base Directory spec). getenv nil means os.Getenv.
// It returns "" only when no home directory is known.
func ConfigDir(getenv func(string) string) string {
	getenv = orEnv(getenv)
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "acpterm")
	}
	if h := home(getenv); h != "" {
		return filepath.Join(h, ".config", "acpterm")
	}
	return ""
}

// UserConfigFile is the user config file Load reads when no --config is given:
// $XDG_CONFIG_HOME/acpterm/config.toml, or ~/.config/acpterm/config.toml when XDG_CONFIG_HOME is
// unset or relative. getenv nil means os.Getenv. It returns "" only when no home directory is
// known.
func UserConfigFile(getenv func(string) string) string {
	if d := ConfigDir(getenv); d != "" {
		return filepath.Join(d, "config.toml")
	}
	return ""
}

// StateDir is acpterm's state directory (grants, audit log, diagnostics log):
// $XDG_STATE_HOME/acpterm, or ~/.local/state/acpterm when XDG_STATE_HOME is unset or relative.
// getenv nil means os.Getenv. It returns "" only when no home directory is known.
func StateDir(getenv func(string) string) string {
	getenv = orEnv(getenv)
	if x := getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "acpterm")
	}
	if h := home(getenv); h != "" {
		return filepath.Join(h, ".local", "state", "acpterm")
	}
	return ""
}

// DefaultAuditLog is the audit log path in the state dir.
func DefaultAuditLog(getenv func(string) string) string {
	if d := StateDir(getenv); d != "" {
		return filepath.Join(d, "audit.jsonl")
	}
	return ""
}

// DefaultGrantsFile is where saved "always" grants are kept: grants.json in the state dir.
func DefaultGrantsFile(getenv func(string) string) string {
	if d := StateDir(getenv); d != "" {
		return filepath.Join(d, "grants.json")
	}
	return ""
}
