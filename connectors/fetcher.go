package connectors

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/stactor/stactor/row"
)

// Fetcher is the pattern for a reader whose client library blocks (a
// database cursor, a consumer's poll): PollNext must return within about
// 100 ms (DESIGN §3), so the blocking reads run in a goroutine the reader
// owns, and PollNext takes what is ready.
//
// The reader starts the Fetcher in Open (or when a split arrives) with its
// ctx; the fetch function sends each batch with the position after its last
// row, and returns when its work is done (nil), on an error, or when ctx is
// done. Poll hands ready batches to the collector and returns the position
// of the last one it handed over, so the reader's SnapshotState, which runs
// between PollNext calls, sees exactly the rows emitted so far: a batch the
// goroutine fetched but Poll has not emitted is not part of the position.
// The queue is bounded (Buffer batches), so a slow job slows the fetch
// instead of growing memory. Close cancels the goroutine and waits for it.
//
// One Fetcher serves one stream (a split); a reader with several splits
// runs one after the other, or one per split.
type Fetcher[P any] struct {
	cancel context.CancelFunc
	items  chan fetched[P]
	done   chan struct{}
	err    error // the fetch function's result; read after done is closed
	once   sync.Once
}

type fetched[P any] struct {
	b   *row.Batch
	pos P
}

// FetchFunc reads a stream: it calls send for each batch with the position
// after its last row. send returns false when the Fetcher is closing; the
// function should then return promptly. It must use ctx for its I/O.
type FetchFunc[P any] func(ctx context.Context, send func(b *row.Batch, pos P) bool) error

// StartFetcher starts fn in a goroutine bounded by ctx, with room for
// buffer ready batches (at least 1).
func StartFetcher[P any](ctx context.Context, buffer int, fn FetchFunc[P]) *Fetcher[P] {
	if buffer < 1 {
		buffer = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &Fetcher[P]{cancel: cancel, items: make(chan fetched[P], buffer), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.err = fn(ctx, func(b *row.Batch, pos P) bool {
			select {
			case f.items <- fetched[P]{b, pos}:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	return f
}

// ErrFetchDone is returned by Poll once the fetch function has returned
// nil and every batch it sent has been handed over.
var ErrFetchDone = errors.New("fetch done")

// Poll waits up to wait for a ready batch, then hands over every batch
// that is ready (at most max, 0 for no bound). It returns the position
// after the last batch handed over and whether any was. Once the stream
// has ended and is drained, it returns ErrFetchDone, or the fetch
// function's error (context.Canceled after Close is reported as
// ErrFetchDone).
func (f *Fetcher[P]) Poll(out Collector, wait time.Duration, max int) (pos P, got bool, err error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case it := <-f.items:
		out.Emit(it.b)
		pos, got = it.pos, true
	case <-f.done:
		return f.drain(out, max)
	case <-timer.C:
		return pos, false, nil
	}
	for n := 1; max == 0 || n < max; n++ {
		select {
		case it := <-f.items:
			out.Emit(it.b)
			pos = it.pos
		default:
			return pos, true, nil
		}
	}
	return pos, true, nil
}

// drain hands over what the finished goroutine left in the queue (at most
// max, 0 for no bound).
func (f *Fetcher[P]) drain(out Collector, max int) (pos P, got bool, err error) {
	for n := 0; ; n++ {
		if got && max > 0 && n >= max {
			return pos, true, nil
		}
		select {
		case it := <-f.items:
			out.Emit(it.b)
			pos, got = it.pos, true
		default:
			if got {
				return pos, true, nil
			}
			if f.err == nil || errors.Is(f.err, context.Canceled) {
				return pos, false, ErrFetchDone
			}
			return pos, false, f.err
		}
	}
}

// Close stops the goroutine and waits for it to return. Batches it had
// fetched but Poll had not handed over are dropped: they are after the
// position the reader last reported. Close may be called more than once.
func (f *Fetcher[P]) Close() error {
	f.once.Do(f.cancel)
	<-f.done
	if f.err != nil && !errors.Is(f.err, context.Canceled) && !errors.Is(f.err, context.DeadlineExceeded) {
		return f.err
	}
	return nil
}
