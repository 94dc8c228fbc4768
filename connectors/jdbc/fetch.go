package jdbc

import (
	"context"
	"errors"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// fetcher runs a split's blocking reads in a goroutine the reader owns,
// so that PollNext returns within its bound (DESIGN §3). The goroutine
// sends each batch with the position after it into a bounded queue; poll
// emits what is ready and reports the position of the last batch
// emitted, so a snapshot between polls covers exactly the rows emitted.
type fetcher struct {
	cancel context.CancelFunc
	items  chan fetchedBatch
	done   chan struct{}
	err    error // the fetch function's result, read after done
}

type fetchedBatch struct {
	b   *row.Batch
	pos position
}

// fetchFunc reads a stream, calling send per batch; send is false once
// the fetcher is closing.
type fetchFunc func(ctx context.Context, send func(*row.Batch, position) bool) error

// errFetchDone is poll's answer once the stream ended and was drained.
var errFetchDone = errors.New("fetch done")

func startFetcher(ctx context.Context, buffer int, fn fetchFunc) *fetcher {
	ctx, cancel := context.WithCancel(ctx)
	f := &fetcher{cancel: cancel, items: make(chan fetchedBatch, buffer), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.err = fn(ctx, func(b *row.Batch, p position) bool {
			select {
			case f.items <- fetchedBatch{b, p}:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	return f
}

// poll waits up to wait for a batch, then emits up to max ready ones.
func (f *fetcher) poll(out connectors.Collector, wait time.Duration, max int) (position, bool, error) {
	var pos position
	timer := time.NewTimer(wait)
	defer timer.Stop()
	got := 0
	for got < max {
		var it fetchedBatch
		if got == 0 {
			select {
			case it = <-f.items:
			case <-f.done:
				select {
				case it = <-f.items:
				default:
					if f.err != nil {
						return pos, false, f.err
					}
					return pos, false, errFetchDone
				}
			case <-timer.C:
				return pos, false, nil
			}
		} else {
			select {
			case it = <-f.items:
			default:
				return pos, true, nil
			}
		}
		out.Emit(it.b)
		pos = it.pos
		got++
	}
	return pos, true, nil
}

// close stops the goroutine and waits for it.
func (f *fetcher) close() {
	f.cancel()
	<-f.done
}
