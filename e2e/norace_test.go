//go:build !race

package e2e

// raceEnabled reports that the tests run with -race; the binary is then built with -race too.
const raceEnabled = false
