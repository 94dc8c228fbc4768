package cli

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// What every stactor process pays before main, whatever it runs: the
// package initialisers of everything linked into the binary, as
// GODEBUG=inittrace=1 reports them. Their heap stays in the process (each
// live MB costs about two of peak heap at GOGC=100; issue 17), so the
// budgets below sit a little above what the binary pays now (2026-12-07:
// 1.58 MB and 10,800 allocations in all; 3.07 MB and 32,700 before
// excelize, 1.41 MB / 21,833 of it, was replaced by connectors/localfile's
// own xlsx reader and writer) and fail when a change makes start-up
// dearer. A package over the
// per-package budget is named; raise a budget only with a reason.
const (
	initBudgetBytes  = 1_700_000
	initBudgetAllocs = 12_000
	// perPackageBudget is for any one package but those listed in
	// knownInitCost.
	perPackageBudget = 128_000
)

// knownInitCost are the packages whose init is known to cost more than
// perPackageBudget, with their own budgets in bytes.
var knownInitCost = map[string]int{
	// The NATS server's tables (188 KB): linked for the embedded server a
	// local run serves taps and metrics on.
	"github.com/nats-io/nats-server/v2/server": 200_000,
}

var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, [0-9.]+ ms clock, (\d+) bytes, (\d+) allocs$`)

func TestInitCost(t *testing.T) {
	cmd := stactor(t, t.TempDir(), "--help")
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("stactor --help: %v\n%s", err, stderr.String())
	}
	type pkg struct {
		name          string
		bytes, allocs int
	}
	var pkgs []pkg
	var bytes, allocs int
	for _, line := range strings.Split(stderr.String(), "\n") {
		m := initLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		pkgs = append(pkgs, pkg{m[1], b, a})
		bytes += b
		allocs += a
	}
	if len(pkgs) < 100 {
		t.Fatalf("only %d init lines from GODEBUG=inittrace=1 (is the trace's format still %s?):\n%s", len(pkgs), initLine, stderr.String())
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].bytes > pkgs[j].bytes })
	top := func() string {
		var sb strings.Builder
		for _, p := range pkgs[:min(10, len(pkgs))] {
			sb.WriteString("\n  " + p.name + ": " + strconv.Itoa(p.bytes) + " bytes, " + strconv.Itoa(p.allocs) + " allocs")
		}
		return sb.String()
	}
	t.Logf("%d packages initialised: %d bytes, %d allocations; the largest:%s", len(pkgs), bytes, allocs, top())
	if bytes > initBudgetBytes || allocs > initBudgetAllocs {
		t.Errorf("package initialisation allocates %d bytes in %d allocations, over the budget of %d bytes and %d allocations; the largest:%s",
			bytes, allocs, initBudgetBytes, initBudgetAllocs, top())
	}
	for _, p := range pkgs {
		budget, known := knownInitCost[p.name]
		if !known {
			budget = perPackageBudget
		}
		if p.bytes > budget {
			t.Errorf("%s allocates %d bytes (%d allocations) at init, over its budget of %d: build what it needs on first use (sync.OnceValue) or loop instead of compiling a regexp with a large repeat count",
				p.name, p.bytes, p.allocs, budget)
		}
	}
}
