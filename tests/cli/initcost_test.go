package cli

import (
	"debug/buildinfo"
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
// 1.37 MB and 8,700 allocations in all; 3.07 MB and 32,700 before
// excelize, 1.41 MB / 21,833 of it, was replaced by connectors/localfile's
// own xlsx reader and writer, and 1.58 MB / 10,800 before the nats-server
// library, 190 KB of it, was replaced by monitor/natsserver) and fail
// when a change makes start-up dearer. A package over the per-package
// budget is named; raise a budget only with a reason.
const (
	initBudgetBytes  = 1_500_000
	initBudgetAllocs = 10_000
	// perPackageBudget is for any one package but those listed in
	// knownInitCost.
	perPackageBudget = 128_000
)

// knownInitCost are the packages whose init is known to cost more than
// perPackageBudget, with their own budgets in bytes.
var knownInitCost = map[string]int{}

// notLinked are modules the stactor binary must not link, with the
// reason: each was replaced by stactor's own code for what it cost every
// process (benchmarks/RESULTS.md), and stays a dependency of the tests.
var notLinked = map[string]string{
	"github.com/nats-io/nats-server/v2": "a local run serves NATS with monitor/natsserver; tests start nats-server with internal/natstest",
	"github.com/xuri/excelize/v2":       "connectors/localfile reads and writes xlsx itself; its tests use excelize as the independent oracle",
}

func TestNotLinked(t *testing.T) {
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Deps) < 20 {
		t.Fatalf("the binary's build information lists %d modules: is it still built with module information?", len(info.Deps))
	}
	for _, m := range info.Deps {
		if why, ok := notLinked[m.Path]; ok {
			t.Errorf("stactor links %s %s: %s (go list -deps ./cmd/stactor shows which package imports it)", m.Path, m.Version, why)
		}
	}
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
