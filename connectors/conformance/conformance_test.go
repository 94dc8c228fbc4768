package conformance

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stactor/stactor/row"
)

var keys atomic.Int64

func memSourceCase() Source {
	return Source{
		Factory: memSource,
		Types:   AllTypes(),
		Table: func(dir string, schema *row.Schema, rows [][]any) (string, error) {
			key := fmt.Sprintf("src-%d", keys.Add(1))
			memPut(key, schema, rows)
			return fmt.Sprintf("key = %q", key), nil
		},
		BadOptions: []BadOption{{Name: "NoTable", Body: `key = "nowhere"`, Error: `no table "nowhere"`}},
	}
}

func memSinkCase(exactlyOnce bool) Sink {
	return Sink{
		Factory:     memSink,
		Types:       AllTypes(),
		ExactlyOnce: exactlyOnce,
		Target: func(dir string, schema *row.Schema) (string, func() ([][]any, error), error) {
			key := fmt.Sprintf("sink-%d", keys.Add(1))
			memPut(key, schema, nil)
			return fmt.Sprintf("key = %q", key), memRead(key), nil
		},
		BadOptions: []BadOption{{Name: "NoTable", Body: `key = "nowhere"`, Error: `no table "nowhere"`}},
	}
}

// The correct Mem connector passes: the suite does not fail what keeps
// the contracts.
func TestCorrectConnectorPasses(t *testing.T) {
	r := newRecorder("Mem")
	r.run(func(t tb) { runSource(t, memSourceCase()) })
	r.run(func(t tb) { runSink(t, memSinkCase(true)) })
	if rep := r.report(); rep != "" {
		t.Fatalf("the suite failed a correct connector:\n%s", rep)
	}
}

// Each fault is reported, by the subtest that checks its contract.
func TestBrokenConnectorsAreReported(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults memFaults
		source bool
		// want: a failure of this subtest, saying this
		subtest, says string
	}{
		{"LosesARowOnRestore", memFaults{loseOnRestore: true}, true, "/SnapshotEveryPoll", "missing"},
		{"RepeatsARowOnRestore", memFaults{repeatOnRestore: true}, true, "/SnapshotHalfway", "extra"},
		{"BlockingPoll", memFaults{blockingPoll: raceSlowdown * 400 * time.Millisecond}, true, "/IdlePoll", "PollNext without splits took"},
		{"SlowPollWithRows", memFaults{slowFetch: raceSlowdown * 300 * time.Millisecond}, true, "/AllTypes", "PollNext must return within " + (raceSlowdown * 250 * time.Millisecond).String()},
		{"PanicOnBadSplit", memFaults{panicOnBadSplit: true}, true, "/OpenClose/BadSplitThenClose", "a split it did not encode must be an error, got panic"},
		{"AssignsTwice", memFaults{assignTwice: true}, true, "/Assignment", "assigned twice"},
		{"ForgetsReRegistration", memFaults{forgetReRegister: true}, true, "/Assignment", "was not told again"},
		{"ValueOutOfRange", memFaults{outOfRange: true}, true, "/Types/tinyint", "rows read differ"},
		{"BadOptionFoundLate", memFaults{lateUnknownBad: true}, true, "/BadOptions/NoTable", "options were accepted"},
		{"VisibleBeforeCommit", memFaults{visibleBeforeCommit: true}, false, "/Types/string", "visible before the commit"},
		{"CommitNotIdempotent", memFaults{commitAppends: true}, false, "/CommitTwice", "extra"},
		{"AbortCommits", memFaults{abortCommits: true}, false, "/Abort", "extra"},
		{"CommitsStagedWork", memFaults{commitAllStaged: true}, false, "/CrashAfterPrepare", "after the restore of checkpoint 1"},
		{"RestoredWriterForgets", memFaults{writerForgets: true}, false, "/RestoredWriter", "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer memSetFaults(tc.faults)()
			r := newRecorder("Mem")
			if tc.source {
				c := memSourceCase()
				if tc.faults.slowFetch > 0 {
					c.Types = []*row.Type{row.Int} // each source sleeps once
				}
				r.run(func(t tb) { runSource(t, c) })
			} else {
				r.run(func(t tb) { runSink(t, memSinkCase(true)) })
			}
			rep := r.report()
			found := false
			for _, line := range strings.Split(rep, "\n") {
				name, msg, _ := strings.Cut(line, ": ")
				found = found || (strings.Contains(name, tc.subtest) && strings.Contains(msg, tc.says))
			}
			if !found {
				t.Fatalf("the suite did not report %s in %s (%q); it reported:\n%s", tc.name, tc.subtest, tc.says, rep)
			}
		})
	}
}

// A dead server is reported by the first call that meets it, within the
// case's bound; one that hangs past the bound is reported too.
func TestDeadServer(t *testing.T) {
	dead := memSourceCase()
	dead.Types = []*row.Type{row.Int}
	dead.BadOptions = nil
	dead.DeadServer = &BadOption{Body: `key = "gone"`, Error: `Mem: no table "gone"`, Within: 2 * time.Second}
	defer memSetFaults(memFaults{lateUnknownBad: true})()
	r := newRecorder("Mem")
	r.run(func(t tb) { runSource(t, dead) })
	if rep := r.report(); rep != "" {
		t.Fatalf("a dead server reported at reader Open failed the suite:\n%s", rep)
	}
	memSetFaults(memFaults{lateUnknownBad: true, openHangs: 3 * time.Second})
	dead.DeadServer.Within = 500 * time.Millisecond
	r = newRecorder("Mem")
	r.run(func(t tb) {
		t.Run("DeadServer", func(t tb) { dead.defaults(); dead.badOption(t, *dead.DeadServer, true) })
	})
	if rep := r.report(); !strings.Contains(rep, "no error within") {
		t.Fatalf("a hanging connect was not reported: %q", rep)
	}
}

func TestSinkDeadServer(t *testing.T) {
	c := memSinkCase(true)
	c.Types = []*row.Type{row.Int}
	c.BadOptions = nil
	c.DeadServer = &BadOption{Body: `key = "gone"`, Error: `MemSink: no table "gone"`}
	defer memSetFaults(memFaults{lateUnknownBad: true})()
	r := newRecorder("MemSink")
	r.run(func(t tb) { runSink(t, c) })
	if rep := r.report(); rep != "" {
		t.Fatalf("a dead server reported by CreateWriter failed the suite:\n%s", rep)
	}
	c.DeadServer.Error = "connection refused"
	r = newRecorder("MemSink")
	r.run(func(t tb) { runSink(t, c) })
	if rep := r.report(); !strings.Contains(rep, `does not say "connection refused"`) {
		t.Fatalf("an error that does not say what was expected passed: %q", rep)
	}
}
