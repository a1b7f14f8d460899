package programs

import ()

func sshLaunch(tool string, args []string) (Hit, bool) {
	hit := hitFor(tool)
	spec, shorts := getoptSpec{shortVal: "BbcDEeFIiJLlmOoPpQRSWw"}, "oF"
	switch tool {
	case "scp":
		spec, shorts = getoptSpec{shortVal: "cDFiJloPSX"}, "oFSD"
	case "sftp":
		spec, shorts = getoptSpec{shortVal: "BbcDFiJloPRSsX"}, "oFSDb"
	}
	if o, ok := findOption(args, spec, shorts, nil); ok {
		if o == "-b" {
			return hit(o, "runs commands from a batch file, which can hold !command shell escapes")
		}
		return hit(o, "can name a program to run (ProxyCommand, LocalCommand, a config file)")
	}
	return Hit{}, false
}

func init() {
	for _, n := range []string{"ssh", "scp", "sftp"} {
		s := &Spec{Names: []string{n}, Launch: sshLaunch, DynamicArgs: true}
		if n == "ssh" {
			s.Examples = []Example{
				{Line: "ssh -o ProxyCommand='sh -c id' host", Want: "ask", Reason: "ssh -o can name a program"},
				{Line: "ssh -F cfg host", Want: "ask", Reason: "ssh -F"},
			}
		}
		if n == "sftp" {
			s.Examples = []Example{{Line: "sftp -b batch host", Want: "ask", Reason: "sftp -b runs commands from a batch file"}}
		}
		register(s)
	}
}
