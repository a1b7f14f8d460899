package config

import (
	"os"
	"slices"

	"github.com/acpterm/acpterm/permissions/policy"
)

// Permissions converts the [policy] tables into the value the permissions engine decides by.
// The policy also protects acpterm's own files from writes: the config file read (Source),
// the applied project file, the project file name in the session cwd, and acpterm's config and
// state directories (ConfigDir, StateDir; read through getenv, nil meaning os.Getenv). The
// user's own [policy.env] deny entries (those not on policy.BuiltinEnvDeny) go to
// Env.StrictDeny: they are denied whatever the value.
func (c *Config) Permissions(getenv func(string) string) policy.Policy {
	if getenv == nil {
		getenv = os.Getenv
	}
	p := c.Policy
	builtin := policy.BuiltinEnvDeny()
	var strict []string
	for _, g := range p.Env.Deny {
		if !slices.Contains(builtin, g) {
			strict = append(strict, g)
		}
	}
	out := policy.Policy{
		Roots:           slices.Clone(p.Roots),
		Unmatched:       p.Unmatched,
		OutputByteLimit: p.OutputByteLimit,
		Commands: policy.Commands{
			Allow: slices.Clone(p.Commands.Allow), Ask: slices.Clone(p.Commands.Ask), Deny: slices.Clone(p.Commands.Deny),
		},
		Env: policy.Env{Deny: slices.Clone(p.Env.Deny), StrictDeny: strict, Allow: slices.Clone(p.Env.Allow)},
		FS: policy.FS{
			Read: p.FS.Read, Write: p.FS.Write, DenyRead: slices.Clone(p.FS.DenyRead), DenyWrite: slices.Clone(p.FS.DenyWrite),
		},
		Network: policy.Network{
			Allow: slices.Clone(p.Network.Allow), Deny: slices.Clone(p.Network.Deny), Unmatched: p.Network.Unmatched,
		},
		ProjectFile: ProjectFileName,
	}
	for _, f := range []struct{ path, what string }{{c.Source, "acpterm's config file"}, {c.Project, "the project policy file"}} {
		if f.path != "" {
			out.Protected = append(out.Protected, policy.Protected{Path: f.path, Reason: f.what + " (" + f.path + ")"})
		}
	}
	if d := ConfigDir(getenv); d != "" {
		out.Protected = append(out.Protected, policy.Protected{Path: d, Dir: true, Reason: "acpterm's config dir (" + d + ")"})
	}
	if d := StateDir(getenv); d != "" {
		out.Protected = append(out.Protected, policy.Protected{Path: d, Dir: true, Reason: "acpterm's state dir (" + d + "): grants and audit log"})
	}
	return out
}
