package programs

import "strings"

// pytest runs the workspace's test files and conftest.py files (workspace code), and has
// options that load other code, write files where they point, or send data away.

// pytestValueOpts are pytest options that take a value and are dangerous whatever it is (the
// option as spelt, without "="), with why. pytest does not accept abbreviations of long options,
// so only exact names count.
var pytestValueOpts = map[string]string{
	"-p":               "loads a plugin module (code) by name",
	"-c":               "reads another configuration file, whose addopts can load plugins",
	"--config-file":    "reads another configuration file, whose addopts can load plugins",
	"--inifile":        "reads another configuration file, whose addopts can load plugins",
	"-o":               "overrides a configuration value (cache_dir, addopts … can point writes or load code elsewhere)",
	"--override-ini":   "overrides a configuration value (cache_dir, addopts … can point writes or load code elsewhere)",
	"--basetemp":       "makes the directory its temporary base (it deletes and recreates it)",
	"--junitxml":       "writes a JUnit XML report wherever it points",
	"--junit-xml":      "writes a JUnit XML report wherever it points",
	"--resultlog":      "writes a result log wherever it points",
	"--result-log":     "writes a result log wherever it points",
	"--report-log":     "writes a report log wherever it points",
	"--log-file":       "writes a log file wherever it points",
	"--html":           "writes an HTML report wherever it points",
	"--cov-report":     "writes coverage reports wherever they point",
	"--pastebin":       "uploads the test output to a pastebin service",
	"--confcutdir":     "loads conftest.py files from directories up to the one it names",
	"--rootdir":        "takes another directory as the root (its configuration and conftest.py files)",
	"--pdbcls":         "imports a debugger class from a module (code) it names",
	"-W":               "sets a warnings filter, which imports the module its category names",
	"--pythonwarnings": "sets a warnings filter, which imports the module its category names",
}

// pytestFlagOpts are dangerous pytest options without a required value.
var pytestFlagOpts = map[string]string{
	"--debug": "writes a debug log file (pytestdebug.log, or where it points)",
}

// pytestLaunch checks a pytest command line (after the program, or after python -m pytest).
func pytestLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a == Dynamic {
			return hit("<dynamic>", "gets an argument only known at run time, which may be an option that loads code or writes files")
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(a, "=")
		if strings.HasPrefix(a, "--") {
			if why, ok := pytestValueOpts[name]; ok {
				return hit(name, why)
			}
			if why, ok := pytestFlagOpts[name]; ok {
				return hit(name, why)
			}
			continue
		}
		// Short options bundle (-xq, -pNAME, -p NAME, -o k=v).
		for k := 1; k < len(a); k++ {
			opt := "-" + string(a[k])
			if why, ok := pytestValueOpts[opt]; ok {
				val := a[k+1:]
				if val == "" && i+1 < len(args) {
					val = args[i+1]
				}
				if opt == "-p" && strings.HasPrefix(val, "no:") {
					break // -p no:NAME only disables a plugin
				}
				return hit(opt, why)
			}
			if a[k] == 'k' || a[k] == 'm' {
				// -k EXPR / -m EXPR take a value: the rest of the word or the next one.
				if k == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return Hit{}, false
}

func init() {
	register(&Spec{Names: []string{"pytest", "py.test"},
		Launch:        pytestLaunch,
		DynamicArgs:   true,
		WorkspaceCode: Runner{Always: true, Files: "test files, conftest.py"}.workspaceCode(),
		Examples: []Example{
			{Line: "pytest -q", Want: "ask", Reason: "pytest runs scripts from workspace files the agent can edit"},
			{Line: "pytest -q", Confined: true, Want: "allow"},
			{Line: "pytest -x --tb=short tests/unit -k 'parse and not slow'", Confined: true, Want: "allow"},
			{Line: "pytest -p no:cacheprovider -q", Confined: true, Want: "allow"},
			{Line: "pytest -p myplugin", Confined: true, Want: "ask", Reason: "pytest -p loads a plugin module"},
			{Line: "pytest -pmyplugin", Confined: true, Want: "ask", Reason: "pytest -p loads a plugin module"},
			{Line: "pytest --basetemp=/tmp/x", Confined: true, Want: "ask", Reason: "pytest --basetemp makes the directory"},
			{Line: "pytest --junitxml=/tmp/r.xml", Confined: true, Want: "ask", Reason: "pytest --junitxml writes"},
			{Line: "pytest --junit-xml r.xml", Confined: true, Want: "ask", Reason: "pytest --junit-xml writes"},
			{Line: "pytest --pastebin=all", Confined: true, Want: "ask", Reason: "pytest --pastebin uploads"},
			{Line: "pytest --debug", Confined: true, Want: "ask", Reason: "pytest --debug writes a debug log"},
			{Line: "pytest --debug=/tmp/x.log", Confined: true, Want: "ask", Reason: "pytest --debug writes"},
			{Line: "pytest -o cache_dir=/tmp/c", Confined: true, Want: "ask", Reason: "pytest -o overrides a configuration value"},
			{Line: "pytest --override-ini=cache_dir=/tmp/c", Confined: true, Want: "ask", Reason: "pytest --override-ini"},
			{Line: "pytest --confcutdir=/", Confined: true, Want: "ask", Reason: "pytest --confcutdir loads conftest.py"},
			{Line: "pytest --rootdir /tmp", Confined: true, Want: "ask", Reason: "pytest --rootdir"},
			{Line: "pytest -c /tmp/pytest.ini", Confined: true, Want: "ask", Reason: "pytest -c reads another configuration file"},
			{Line: "pytest --pdbcls=x:Y", Confined: true, Want: "ask", Reason: "pytest --pdbcls imports"},
			{Line: "pytest -W error::x.Warn", Confined: true, Want: "ask", Reason: "pytest -W sets a warnings filter"},
			{Line: "pytest --cov-report=html:/tmp/h", Confined: true, Want: "ask", Reason: "pytest --cov-report writes"},
			{Line: "pytest -xq -p myplugin", Confined: true, Want: "ask", Reason: "pytest -p"},
		}})
}
