package sandbox

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	RunHelperIfAsked()
	os.Exit(m.Run())
}
