//go:build tools

package main

import (
	_ "charm.land/bubbles/v2/textarea"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/glamour/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/charmbracelet/x/vt"
	_ "github.com/coder/acp-go-sdk"
	_ "github.com/creack/pty"
	_ "github.com/pelletier/go-toml/v2"
	_ "go.uber.org/goleak"
	_ "golang.org/x/sys/unix"
	_ "mvdan.cc/sh/v3/syntax"
)
