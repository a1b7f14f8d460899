package programs

import (
	"strings"
)

// goFlagReasons are go command flags (any subcommand, - or --, with or without test.) that run
// another program, write a file wherever they point, or make go read its inputs from elsewhere.
var goFlagReasons = map[string]string{
	"exec":         "runs a program around every binary",
	"toolexec":     "runs a program around every compiler and tool invocation",
	"vettool":      "runs another program as the vet tool",
	"C":            "runs go in another directory, whose go.mod and files are not checked",
	"modfile":      "reads another go.mod, which can replace modules with other code",
	"overlay":      "replaces source files with the ones an overlay file names",
	"pgo":          "reads a profile file named by the agent",
	"ldflags":      "passes flags to the linker, which can name an external linker program (-extld)",
	"gccgoflags":   "passes flags to gccgo",
	"gcflags":      "passes flags to the compiler, which can write profiles and other files wherever they point",
	"asmflags":     "passes flags to the assembler, which can write files wherever they point",
	"pkgdir":       "installs and loads packages from a directory wherever it points",
	"compiler":     "chooses another compiler",
	"coverprofile": "writes a coverage profile wherever it points",
	"cpuprofile":   "writes a CPU profile wherever it points",
	"memprofile":   "writes a memory profile wherever it points",
	"blockprofile": "writes a block profile wherever it points",
	"mutexprofile": "writes a mutex profile wherever it points",
	"trace":        "writes an execution trace wherever it points",
	"outputdir":    "writes profiles into a directory wherever it points",
	"testlogfile":  "writes a log file wherever it points",
	"gocoverdir":   "writes coverage data wherever it points",
	"fuzzcachedir": "writes the fuzz cache wherever it points",
}

// goLaunch checks a go command line: flags from goFlagReasons (also the -test.* flags given to
// the test binary after -args or after the package list), and subcommands that run commands or
// write outside the roots (tool, install, env -w/-u).
func goLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	sub := ""
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "-args" || a == "--args" {
			continue // the words after it go to the test binary: its -test.* flags still count
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if sub == "" {
				sub = a
				switch sub {
				case "tool":
					return hit("tool", "runs a tool program (also module tools from go.mod)")
				case "install":
					return hit("install", "writes binaries outside the roots (GOBIN or GOPATH/bin)")
				case "env":
					for _, b := range args[i+1:] {
						if b == "-w" || b == "-u" {
							return hit("env "+b, "writes go's environment file, whose GOFLAGS apply to every later go command")
						}
					}
				}
			}
			continue
		}
		name := strings.TrimLeft(a, "-")
		name, _, _ = strings.Cut(name, "=")
		name = strings.TrimPrefix(name, "test.")
		if why, ok := goFlagReasons[name]; ok {
			return hit("-"+name, why)
		}
	}
	return Hit{}, false
}

// goWrites returns where go writes by -o (go build, go test -c): checked like a redirect
// target, so -o /dev/null and -o bin/x inside the roots are fine and -o ~/.bashrc is not.
func goWrites(_ string, args []Arg) Targets {
	var t Targets
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dyn {
			continue // a dynamic word is already at least ask (DynamicArgs)
		}
		if a.S == "--" || a.S == "-args" || a.S == "--args" {
			break
		}
		switch {
		case a.S == "-o" || a.S == "--o":
			if i+1 < len(args) {
				i++
				if args[i].Dyn {
					t.Dynamic = true
				} else {
					t.Paths = append(t.Paths, args[i].S)
				}
			}
		case strings.HasPrefix(a.S, "-o=") || strings.HasPrefix(a.S, "--o="):
			_, v, _ := strings.Cut(a.S, "=")
			t.Paths = append(t.Paths, v)
		}
	}
	return t
}

func init() {
	register(&Spec{Names: []string{"go"}, Launch: goLaunch, DynamicArgs: true, Writes: goWrites,
		WorkspaceCode: Runner{Subs: setOf("generate", "test", "run"), Files: "test files, //go:generate lines, main packages"}.workspaceCode(),
		Examples: []Example{
			{Line: "go build ./...", Want: "allow"},
			{Line: "go vet ./... && go list -m all", Want: "allow"},
			{Line: "CGO_ENABLED=0 go build -trimpath ./cmd/x", Want: "allow"},
			{Line: "go build -o /dev/null ./...", Want: "allow"},
			{Line: "go build -o bin/x ./cmd/x", Want: "allow"},
			{Line: "go build -o ~/.bashrc .", Want: "deny", Reason: "go writes"},
			{Line: "go build -o=/usr/local/bin/x .", Want: "deny", Reason: "outside the roots"},
			{Line: "go test ./...", Want: "ask", Reason: "go test runs scripts from workspace files the agent can edit"},
			{Line: "go test -race -count=1 ./...", Confined: true, Want: "allow"},
			{Line: "go run ./cmd/x", Confined: true, Want: "allow"},
			{Line: "go generate ./...", Want: "ask", Reason: "go generate"},
			{Line: "go build -gcflags=all=-N ./...", Want: "ask", Reason: "go -gcflags passes flags to the compiler"},
			{Line: "go build -ldflags '-extld=/tmp/x' .", Want: "ask", Reason: "go -ldflags"},
			{Line: "go build -asmflags=-trimpath .", Want: "ask", Reason: "go -asmflags"},
			{Line: "go test ./... -args -test.cpuprofile=/tmp/c", Confined: true, Want: "ask", Reason: "go -cpuprofile writes"},
			{Line: "go test ./pkg -test.coverprofile=/tmp/c", Confined: true, Want: "ask", Reason: "go -coverprofile"},
			{Line: "go test -exec /tmp/x ./...", Confined: true, Want: "ask", Reason: "go -exec runs a program"},
			{Line: "go test -toolexec=/tmp/x ./...", Confined: true, Want: "ask", Reason: "go -toolexec"},
			{Line: "go test -coverprofile=c.out ./...", Confined: true, Want: "ask", Reason: "go -coverprofile"},
			{Line: "go -C /tmp build", Want: "ask", Reason: "go -C runs go in another directory"},
			{Line: "go build -modfile=x.mod .", Want: "ask", Reason: "go -modfile"},
			{Line: "go build -overlay o.json .", Want: "ask", Reason: "go -overlay"},
			{Line: "go build -pgo=p .", Want: "ask", Reason: "go -pgo"},
			{Line: "go build -pkgdir /tmp/p .", Want: "ask", Reason: "go -pkgdir"},
			{Line: "go install ./cmd/x", Want: "ask", Reason: "go install writes binaries outside the roots"},
			{Line: "go env -w GOFLAGS=-x", Want: "ask", Reason: "go env -w"},
			{Line: "go tool pprof x", Want: "ask", Reason: "go tool runs a tool program"},
		}})
}
