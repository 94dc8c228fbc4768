package connectors_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

type collect struct{ batches []*row.Batch }

func (c *collect) Emit(b *row.Batch) { c.batches = append(c.batches, b) }
func (c *collect) BatchSize() int    { return 10 }

var fetchSchema = row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt})

func batchOf(t *testing.T, ids ...int64) *row.Batch {
	t.Helper()
	b := row.NewBuilder(fetchSchema, len(ids))
	for _, id := range ids {
		if err := b.AppendRow(row.Insert, []any{id}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

// Poll hands over what the goroutine fetched, with the position after the
// last batch handed over, returns in bounded time when nothing is ready,
// and reports the end of the stream once drained.
func TestFetcherPositionsAndEnd(t *testing.T) {
	release := make(chan struct{})
	f := connectors.StartFetcher(context.Background(), 2, func(ctx context.Context, send func(*row.Batch, int64) bool) error {
		<-release
		for i := int64(1); i <= 3; i++ {
			if !send(batchOf(t, i), i) {
				return ctx.Err()
			}
		}
		return nil
	})
	defer f.Close()
	out := &collect{}
	start := time.Now()
	if _, got, err := f.Poll(out, 50*time.Millisecond, 0); got || err != nil {
		t.Fatalf("nothing fetched yet: got %v, %v", got, err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("Poll did not return in bounded time")
	}
	close(release)
	var last int64
	for last < 3 {
		pos, got, err := f.Poll(out, time.Second, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got {
			if pos != last+1 {
				t.Fatalf("position %d after %d", pos, last)
			}
			last = pos
		}
	}
	if len(out.batches) != 3 {
		t.Fatalf("%d batches emitted", len(out.batches))
	}
	if _, _, err := f.Poll(out, time.Second, 0); !errors.Is(err, connectors.ErrFetchDone) {
		t.Fatalf("after the end: %v, want ErrFetchDone", err)
	}
}

// The fetch function's error comes out of Poll after what it sent, and
// Close ends a goroutine blocked on a full queue.
func TestFetcherErrorAndClose(t *testing.T) {
	boom := errors.New("connection reset")
	f := connectors.StartFetcher(context.Background(), 1, func(ctx context.Context, send func(*row.Batch, int64) bool) error {
		send(batchOf(t, 1), 1)
		return boom
	})
	out := &collect{}
	var err error
	for err == nil {
		_, _, err = f.Poll(out, time.Second, 0)
	}
	if !errors.Is(err, boom) || len(out.batches) != 1 {
		t.Fatalf("err %v after %d batches, want %v after 1", err, len(out.batches), boom)
	}
	if err := f.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close: %v", err)
	}

	blocked := connectors.StartFetcher(context.Background(), 1, func(ctx context.Context, send func(*row.Batch, int64) bool) error {
		for i := int64(0); ; i++ {
			if !send(batchOf(t, i), i) {
				return ctx.Err()
			}
		}
	})
	done := make(chan error, 1)
	go func() { done <- blocked.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close of a cancelled fetch: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end a goroutine blocked on a full queue")
	}
}
