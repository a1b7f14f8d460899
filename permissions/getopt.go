package permissions

import "github.com/acpterm/acpterm/permissions/programs"

// longAbbrev reports whether word spells the long option full as GNU getopt_long accepts it
// (the exact name or an abbreviation, with or without "=value"); the option-spelling rules
// live in package programs, with the program tables that use them.
func longAbbrev(word, full string) bool { return programs.LongAbbrev(word, full) }
