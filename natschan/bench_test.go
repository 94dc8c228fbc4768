package natschan

import (
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

const benchRows, benchWindow = 4096, 8

// BenchmarkSendReceive sends 4096-row batches of (id bigint, name string,
// score double) from one connection to another through an embedded server
// over loopback, with a credit window of 8 batches as the engine uses, and
// counts a batch when it is decoded and delivered (then releases it, as a
// subtask does, so its vectors are recycled). MB/s is of the row
// codec's encoding.
func BenchmarkSendReceive(b *testing.B) {
	s := runServer(b, nil)
	credits := make(chan struct{}, benchWindow)
	done := make(chan struct{})
	var c collector
	delivered, target := 0, b.N
	r, err := NewReceiver(connect(b, s), scope, 0, func(m any) {
		if bm, ok := m.(*messages.Batch); ok {
			bm.Rows.Release() // as the subtask does once its operators are done
			<-credits
			if delivered++; delivered == target {
				close(done)
			}
		}
	}, c.onError)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close() })
	snd := newSender(b, connect(b, s), scope, 0, 0)
	batch := scoreBatch(0, benchRows, 12)
	size := row.EncodedSize(batch)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := range b.N {
		credits <- struct{}{}
		if err := snd.SendBatch(0, int64(i+1), 0, batch); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatal("batches not delivered within a minute")
	}
	elapsed := time.Since(start)
	b.StopTimer()
	reportCPU(b, size, cpu0)
	if _, errs := c.snapshot(); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.ReportMetric(float64(b.N*benchRows)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(size), "bytes/batch")
}

// BenchmarkRawNATS is the transport alone, for comparison: payloads of the
// same size as BenchmarkSendReceive's batches, with the same window, no
// codec and no frame.
func BenchmarkRawNATS(b *testing.B) {
	benchRaw(b, func(sc *nats.Conn, _ int, data []byte) error { return sc.Publish("raw", data) }, func(*nats.Msg) {})
}

// BenchmarkRawNATSHeaders is BenchmarkRawNATS with the five NATS headers
// every batch carried before the channel's frame replaced them (wire.go):
// the cost of headers alone, which the frame avoids.
func BenchmarkRawNATSHeaders(b *testing.B) {
	msg := nats.Msg{Subject: "raw", Header: nats.Header{}}
	for k, v := range map[string]string{"Stactor-Attempt": "3", "Stactor-Term": "7", "Stactor-From": "0", "Stactor-Kind": "batch"} {
		msg.Header.Set(k, v)
	}
	benchRaw(b, func(sc *nats.Conn, i int, data []byte) error {
		msg.Header.Set("Stactor-Seq", strconv.Itoa(i+1))
		msg.Data = data
		return sc.PublishMsg(&msg)
	}, func(m *nats.Msg) {
		if m.Header.Get("Stactor-Seq") == "" {
			b.Error("a message without its headers")
		}
	})
}

// benchRaw publishes b.N payloads with publish on one connection and
// receives them on another, with the channel benchmark's credit window;
// check reads each message received.
func benchRaw(b *testing.B, publish func(sc *nats.Conn, i int, data []byte) error, check func(*nats.Msg)) {
	s := runServer(b, nil)
	rc, sc := connect(b, s), connect(b, s)
	credits := make(chan struct{}, benchWindow)
	done := make(chan struct{})
	n, target := 0, b.N
	sub, err := rc.Subscribe("raw", func(m *nats.Msg) {
		check(m)
		<-credits
		if n++; n == target {
			close(done)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sub.Unsubscribe() })
	if err := rc.Flush(); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, row.EncodedSize(scoreBatch(0, benchRows, 12)))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := range b.N {
		credits <- struct{}{}
		if err := publish(sc, i, data); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatal("messages not delivered within a minute")
	}
	b.StopTimer()
	reportCPU(b, len(data), cpu0)
}

// reportCPU adds MB/cpu-s: the bytes moved per second of the whole
// process's user + system time (both connections, the embedded server, GC),
// which a loaded machine moves far less than it moves MB/s.
func reportCPU(b *testing.B, size int, cpu0 time.Duration) {
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)*float64(size)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
