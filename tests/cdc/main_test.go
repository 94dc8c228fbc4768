// Package cdc runs the stactor binary on change-data-capture jobs between
// the private PostgreSQL and MariaDB servers of internal/dbtest: a source
// table is snapshotted and streamed while a writer inserts, updates and
// deletes, the binary is SIGKILLed and restored again and again, and once
// the writer stops and the job catches up the target must equal the source
// row by row (issue 12; DESIGN §5 and §6).
//
// STACTOR_CDC_ROWS sets the rows of the snapshot (default 20000; the
// issue's 500 k is STACTOR_CDC_ROWS=500000), STACTOR_CDC_KILLS the kills
// (default 3; the is 10 or more).
package cdc

import (
	"os"
	"testing"

	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/tests/internal/stactorbin"
)

var (
	binary  string
	servers dbtest.Servers
)

func TestMain(m *testing.M) {
	os.Exit(stactorbin.Main(func() int {
		return servers.Run(m, dbtest.WithPostgres(), dbtest.WithMariaDB())
	}, &binary))
}
