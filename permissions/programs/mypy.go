package programs

// mypy writes reports and its cache where these options point.
var mypyWriteOpts = []string{"--junit-xml", "--cache-dir", "--html-report", "--txt-report", "--xml-report",
	"--linecount-report", "--linecoverage-report", "--lineprecision-report", "--any-exprs-report",
	"--cobertura-xml-report", "--memory-xml-report", "--xslt-html-report", "--xslt-txt-report"}

func mypyWrites(_ string, args []Arg) Targets { return valueTargets(args, mypyWriteOpts, "") }

func init() {
	register(&Spec{Names: []string{"mypy"}, Writes: mypyWrites, DynamicArgs: true, Examples: []Example{
		{Line: "mypy src", Want: "allow"},
		{Line: "mypy --strict --cache-dir .mypy_cache src", Want: "allow"},
		{Line: "mypy --junit-xml ~/.bashrc src", Want: "deny", Reason: "mypy writes"},
		{Line: "mypy --cache-dir /tmp/c src", Want: "deny", Reason: "outside the roots"},
		{Line: "mypy --cache-d=/tmp/c src", Want: "deny", Reason: "outside the roots"},
		{Line: "mypy --html-report ../r src", Want: "deny", Reason: "outside the roots"},
	}})
}
