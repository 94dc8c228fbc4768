// Package monitor tests watching a running job the way a user does (DESIGN
// §9, issue 15): the stactor binary runs a job locally against a NATS
// server (--nats), and `stactor tap` and `stactor top`, other processes,
// watch it: tapped rows arrive within a second of tapping, a listener that
// stops reading neither slows the job nor costs it a row and is told what
// it missed, and top draws the job on a pseudo-terminal and quits on q.
package monitor

import (
	"os"
	"testing"

	"github.com/stactor/stactor/tests/internal/stactorbin"
)

var bin string

func TestMain(m *testing.M) { os.Exit(stactorbin.Main(m.Run, &bin)) }
