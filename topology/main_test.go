package topology

import (
	"testing"

	"corepin.dev/corepin/internal/sysfstest"
)

func TestMain(m *testing.M) { sysfstest.Main(m) }
