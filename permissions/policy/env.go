package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// BuiltinEnvDeny returns (a fresh copy of) the variable-name globs the agent may never set:
// dynamic-loader and interpreter start-up hooks, pagers and editors, PATH and HOME, and every
// variable that makes a common tool run another program or read its configuration (and so
// commands) from elsewhere. Matching ignores case. The same list applies to variables a shell
// script sets for a child (VAR=x cmd, export, declare -x, env VAR=x, set -a). A
// configuration's deny list extends it.
func BuiltinEnvDeny() []string { return slices.Clone(builtinEnvDeny) }

// HiddenEnvDeny returns (a fresh copy of) more variable-name globs that make an allowed
// program run other code, denied like BuiltinEnvDeny but not shown among a configuration's
// defaults: exported bash functions, locale and loader module paths, JVM and Rust wrapper
// hooks, npm config (script-shell), SHELL (used by make, editors and pagers to run commands),
// and the XDG config dir (git and npm read their config from it).
func HiddenEnvDeny() []string { return slices.Clone(hiddenEnvDeny) }

// BuiltinEnvAllow returns (a fresh copy of) the variable-name globs the agent may always set:
// they only change colours, locale, verbosity or "am I in CI" behaviour. A configuration's
// allow list extends it.
func BuiltinEnvAllow() []string { return slices.Clone(builtinEnvAllow) }

// EnvAllowProblem says why env allow glob g can never take effect because HiddenEnvDeny
// covers it (deny beats allow; names compare without case), or "" when it can.
func EnvAllowProblem(g string) string {
	for _, d := range hiddenEnvDeny {
		if ok, _ := path.Match(strings.ToUpper(d), strings.ToUpper(g)); ok {
			return fmt.Sprintf("%q has no effect: it is on acpterm's built-in env deny list as %q (it can make an allowed program run other code), and deny beats allow; remove it", g, d)
		}
	}
	return ""
}

// builtinEnvDeny, hiddenEnvDeny and builtinEnvAllow hold what the functions above return.
var builtinEnvDeny = []string{
	"LD_*", "DYLD_*", "GCONV_PATH", "GCONV_MODULES", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS",
	"PROMPT_COMMAND", "PS4", "IFS", "CDPATH", "GLOBIGNORE", "NODE_OPTIONS", "BUN_OPTIONS",
	"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
	"GIT_*", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "EDITOR", "VISUAL", "BROWSER",
	"SSH_ASKPASS", "SUDO_ASKPASS", "PATH", "HOME",
	// Pagers: less runs "!cmd" and "|cmd" typed or given as +cmd in LESS; lesskey files bind keys
	// to shell commands; more also takes options from MORE.
	"LESS", "LESSKEY", "LESSKEYIN", "LESSKEY_SYSTEM", "LESSKEYIN_SYSTEM", "LESSEDIT", "LESSSECURE", "MORE",
	// Build tools: go runs -toolexec/-exec from GOFLAGS (or a GOENV file), a GOTOOLCHAIN/GOROOT
	// toolchain, and CC/CXX/CGO_* compilers; make takes options from MAKEFLAGS; cargo/rustc
	// run wrappers, runners and linkers from their variables or CARGO_HOME/config.toml.
	"GOFLAGS", "GOENV", "GOTOOLCHAIN", "GOROOT", "CC", "CXX", "CPP", "AR", "LD", "FC", "CGO_*",
	"PKG_CONFIG", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "RUSTC", "RUSTC_WRAPPER",
	"RUSTC_WORKSPACE_WRAPPER", "RUSTFLAGS", "RUSTDOC", "RUSTDOCFLAGS", "CARGO_BUILD_*",
	"CARGO_TARGET_*", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
	// Tool config files that name programs: rg --pre via its config file, tar --to-command.
	"RIPGREP_CONFIG_PATH", "TAR_OPTIONS",
	// Package managers and interpreters: npm/yarn config (script-shell, yarnPath), node module
	// path, Python warnings filters and user site (.pth files run code), JVM/.NET start-up hooks.
	"NPM_CONFIG_*", "YARN_*", "NODE_PATH", "PYTHONWARNINGS", "PYTHONUSERBASE", "JAVA_TOOL_OPTIONS",
	"_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS", "GRADLE_OPTS", "DOTNET_STARTUP_HOOKS",
	// Shells and config directories (tools read config, and so commands, from them).
	"SHELL", "ZDOTDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
}

var builtinEnvAllow = []string{
	"CI", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "COLORTERM", "TERM", "COLUMNS",
	"LINES", "CLAUDECODE", "LANG", "LANGUAGE", "LC_*", "TZ", "RUST_BACKTRACE", "RUST_LOG", "NODE_ENV",
	"PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "DEBIAN_FRONTEND",
}

var hiddenEnvDeny = []string{
	"BASH_FUNC_*", "LOCPATH", "NLSPATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
	"NPM_CONFIG_*", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER",
	"SHELL", "ZDOTDIR", "XDG_CONFIG_HOME", "PERLLIB", "PERL5DB", "TERMINFO", "GCONV_*",
}
