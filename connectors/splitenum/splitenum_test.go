package splitenum

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stactor/stactor/connectors"
)

// enumCtx records what the enumerator tells its readers.
type enumCtx struct {
	parallelism int
	registered  []int
	assigned    map[int][]string
	noMore      map[int]int
}

func newCtx(p int, registered ...int) *enumCtx {
	return &enumCtx{parallelism: p, registered: registered, assigned: map[int][]string{}, noMore: map[int]int{}}
}

func (c *enumCtx) Parallelism() int               { return c.parallelism }
func (c *enumCtx) RegisteredReaders() []int       { return append([]int(nil), c.registered...) }
func (c *enumCtx) SignalNoMoreSplits(subtask int) { c.noMore[subtask]++ }
func (c *enumCtx) AssignSplits(subtask int, splits ...connectors.Split) {
	for _, s := range splits {
		c.assigned[subtask] = append(c.assigned[subtask], string(s.Data))
	}
}

// tsplit is "name/owner"; discovered counts Discover calls.
type tsplit struct {
	name  string
	owner int
}

func splits(names []string, discovered *int) Splits[*tsplit] {
	return Splits[*tsplit]{
		Name: "Test",
		Discover: func(_ context.Context, n int) ([]*tsplit, error) {
			*discovered++
			var out []*tsplit
			for i, s := range names {
				out = append(out, &tsplit{name: s, owner: i % n})
			}
			return out, nil
		},
		Encode: func(s *tsplit) connectors.Split {
			return connectors.Split{ID: s.name, Data: []byte(s.name + "/" + strconv.Itoa(s.owner))}
		},
		Decode: func(cs connectors.Split) (*tsplit, error) {
			name, owner, ok := strings.Cut(string(cs.Data), "/")
			o, err := strconv.Atoi(owner)
			if !ok || err != nil {
				return nil, errors.New("bad split")
			}
			return &tsplit{name: name, owner: o}, nil
		},
		Owner: func(s *tsplit) int { return s.owner },
	}
}

func TestAssignOnRunAndRegistration(t *testing.T) {
	var n int
	ctx := newCtx(2, 1)
	e, err := New(ctx, splits([]string{"a", "b", "c"}, &n), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Run()
	if fmt.Sprint(ctx.assigned) != "map[1:[b/1]]" || ctx.noMore[1] != 1 || ctx.noMore[0] != 0 {
		t.Fatalf("after Run: %v, no more %v", ctx.assigned, ctx.noMore)
	}
	ctx.registered = []int{0, 1}
	e.RegisterReader(0)
	if fmt.Sprint(ctx.assigned[0]) != "[a/0 c/0]" || ctx.noMore[0] != 1 {
		t.Fatalf("reader 0: %v, no more %v", ctx.assigned[0], ctx.noMore)
	}
	// A reader registering again is told again; nothing is assigned twice.
	e.RegisterReader(1)
	if len(ctx.assigned[1]) != 1 || ctx.noMore[1] != 2 {
		t.Fatalf("re-registered reader 1: %v, no more %d", ctx.assigned[1], ctx.noMore[1])
	}
	if n != 1 {
		t.Fatalf("discovered %d times", n)
	}
}

// Run without Open discovers; a state that had discovered does not again.
func TestStateAndRunWithoutOpen(t *testing.T) {
	var n int
	ctx := newCtx(2)
	e, _ := New(ctx, splits([]string{"a", "b", "c"}, &n), nil)
	e.Run()
	e.RegisterReader(0)
	state, _ := e.SnapshotState(1)
	ctx2 := newCtx(3, 0, 1, 2)
	e2, err := New(ctx2, splits([]string{"x"}, &n), state)
	if err != nil {
		t.Fatal(err)
	}
	e2.Open(context.Background())
	e2.Run()
	// b keeps owner 1 (1 % 3); nobody else gets anything.
	if n != 1 || fmt.Sprint(ctx2.assigned) != "map[1:[b/1]]" || !reflect.DeepEqual(ctx2.noMore, map[int]int{0: 1, 1: 1, 2: 1}) {
		t.Fatalf("restored: discovered %d, %v, %v", n, ctx2.assigned, ctx2.noMore)
	}
	// An undiscovered state discovers anew, with the new parallelism.
	fresh, _ := New(newCtx(2), splits(nil, &n), nil)
	state, _ = fresh.SnapshotState(1)
	ctx3 := newCtx(3, 0, 1, 2)
	e3, _ := New(ctx3, splits([]string{"a", "b", "c", "d"}, &n), state)
	e3.Open(context.Background())
	e3.Run()
	if fmt.Sprint(ctx3.assigned) != "map[0:[a/0 d/0] 1:[b/1] 2:[c/2]]" {
		t.Fatalf("undiscovered state: %v", ctx3.assigned)
	}
}

func TestAddSplitsBack(t *testing.T) {
	var n int
	sp := splits([]string{"a", "b", "c", "d"}, &n)
	sp.Returned = func(s *tsplit, subtask int) *tsplit { s.owner = subtask; return s }
	sp.Less = func(a, b *tsplit) bool { return a.name < b.name }
	ctx := newCtx(2)
	e, _ := New(ctx, sp, nil)
	e.Open(context.Background())
	// Splits of an old reader 3 come back: with 2 readers they go to 1,
	// which is not registered yet, in name order.
	if err := e.AddSplitsBack([]connectors.Split{{Data: []byte("z/0")}, {Data: []byte("y/0")}}, 3); err != nil {
		t.Fatal(err)
	}
	if len(ctx.assigned) != 0 {
		t.Fatalf("assigned before Run: %v", ctx.assigned)
	}
	e.Run()
	ctx.registered = []int{0, 1}
	e.RegisterReader(0)
	e.RegisterReader(1)
	if fmt.Sprint(ctx.assigned) != "map[0:[a/0 c/0] 1:[b/1 d/1 y/3 z/3]]" {
		t.Fatalf("assigned %v", ctx.assigned)
	}
	// Handed back to a registered owner: assigned at once, and only to it.
	ctx.assigned = map[int][]string{}
	e.AddSplitsBack([]connectors.Split{{Data: []byte("q/0")}}, 0)
	if fmt.Sprint(ctx.assigned) != "map[0:[q/0]]" || ctx.noMore[1] != 1 {
		t.Fatalf("assigned %v, no more %v", ctx.assigned, ctx.noMore)
	}
	err := e.AddSplitsBack([]connectors.Split{{Data: []byte("nonsense")}}, 1)
	if err == nil || !strings.Contains(err.Error(), "Test: split handed back by reader 1: bad split") {
		t.Fatalf("bad split: %v", err)
	}
}

func TestBadState(t *testing.T) {
	var n int
	if _, err := New(newCtx(1), splits(nil, &n), []byte{9}); err == nil || !strings.Contains(err.Error(), "Test enumerator state") {
		t.Fatalf("bad state: %v", err)
	}
	bad := connectors.EncodeEnumeratorState(true, [][]byte{[]byte("no-owner")})
	if _, err := New(newCtx(1), splits(nil, &n), bad); err == nil || !strings.Contains(err.Error(), "bad split") {
		t.Fatalf("bad split in state: %v", err)
	}
}

func TestDiscoverError(t *testing.T) {
	sp := Splits[*tsplit]{Name: "Test", Discover: func(context.Context, int) ([]*tsplit, error) {
		return nil, errors.New("listing /x: permission denied")
	}}
	e, _ := New(newCtx(1, 0), sp, nil)
	if err := e.Open(context.Background()); err == nil || err.Error() != "Test: listing /x: permission denied" {
		t.Fatalf("open: %v", err)
	}
}
