package tap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
)

// Event is what a Listener hands its caller: an Ack from a subtask that
// started tapping for it, or a Message of rows, with the rows of that
// stream it missed since the previous message it received (dropped by
// the point, or lost between the point and this listener).
type Event struct {
	Ack    *Ack
	Msg    *Message
	Missed int64
}

// ListenOptions say what to tap.
type ListenOptions struct {
	Prefix string  // stactor.<cluster>
	Job    string  // the job id
	Vertex string  // selector (Vertex.Matches); "" for every vertex
	Sample float64 // (0, 1]; 0 is 1
	// Buffer is how many NATS messages may wait for the caller before
	// NATS drops further ones (counted as missed); 0 is 1024.
	Buffer int
}

type streamKey struct {
	vertex                     int
	pipeline, attempt, subtask int32
}

type stream struct{ sent, dropped int64 }

// Listen taps a job until ctx ends or fn returns false. It announces an
// Interest at once and every InterestInterval, and a goodbye when it
// returns, so the points turn off at once.
func Listen(ctx context.Context, nc *nats.Conn, o ListenOptions, fn func(Event) bool) error {
	if o.Buffer <= 0 {
		o.Buffer = 1024
	}
	if strings.ContainsAny(o.Job, ".*> \t") || o.Job == "" {
		return fmt.Errorf("tap: %q is not a job id", o.Job)
	}
	in := Interest{Listener: nuid.Next(), Vertex: o.Vertex, Sample: clampSample(o.Sample)}
	// Acks and rows share one channel, in the order the connection
	// received them: a subtask's Ack comes before its first rows. When
	// the channel is full NATS drops further messages for this listener
	// (never for the job); the counters of the next message it gets tell
	// how many rows that was.
	ch := make(chan *nats.Msg, o.Buffer)
	inbox := nc.NewInbox()
	ackSub, err := nc.ChanSubscribe(inbox, ch)
	if err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	defer ackSub.Unsubscribe() //nolint:errcheck // ends with the listener
	rowSub, err := nc.ChanSubscribe(AllSubjects(o.Prefix, o.Job), ch)
	if err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	defer rowSub.Unsubscribe() //nolint:errcheck // ends with the listener
	announce := func(bye bool) error {
		i := in
		i.Bye = bye
		data, _ := json.Marshal(i)
		return nc.PublishMsg(&nats.Msg{Subject: ControlSubject(o.Prefix, o.Job), Reply: inbox, Data: data})
	}
	if err := nc.Flush(); err != nil { // the subscriptions exist before anyone answers
		return fmt.Errorf("tap: %w", err)
	}
	if err := announce(false); err != nil {
		return fmt.Errorf("tap: announcing on %s: %w", ControlSubject(o.Prefix, o.Job), err)
	}
	defer func() {
		_ = announce(true)
		_ = nc.FlushTimeout(time.Second)
	}()
	tick := time.NewTicker(InterestInterval)
	defer tick.Stop()
	acked := map[int]bool{}
	streams := map[streamKey]*stream{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := announce(false); err != nil && !nc.IsReconnecting() {
				return fmt.Errorf("tap: announcing on %s: %w", ControlSubject(o.Prefix, o.Job), err)
			}
		case m := <-ch:
			var ev Event
			if m.Sub == ackSub {
				var a Ack
				if json.Unmarshal(m.Data, &a) != nil {
					continue
				}
				for _, v := range a.Vertices {
					acked[v.ID] = true
					k := streamKey{v.ID, a.Pipeline, a.Attempt, a.Subtask}
					if streams[k] == nil {
						streams[k] = &stream{sent: v.Sent, dropped: v.Dropped}
					}
				}
				ev.Ack = &a
			} else {
				msg, err := DecodeMessage(m.Data)
				if err != nil {
					continue
				}
				// Another listener may tap other vertices of the job.
				if !acked[msg.Vertex] && !(Vertex{ID: msg.Vertex, Name: msg.Name}).Matches(o.Vertex) {
					continue
				}
				ev.Msg = msg
				ev.Missed = account(streams, msg)
			}
			if !fn(ev) {
				return nil
			}
		}
	}
}

// DecodeMessage reads a Message; its numbers stay json.Number, so a
// bigint keeps every digit.
func DecodeMessage(data []byte) (*Message, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	m := &Message{}
	if err := d.Decode(m); err != nil {
		return nil, fmt.Errorf("tap message: %w", err)
	}
	return m, nil
}

// account updates m's stream and says how many rows its listener missed
// since the previous message of the stream it received, or since the
// stream's Ack. Without either (the Ack was lost), the first message sets
// the baseline.
func account(streams map[streamKey]*stream, m *Message) int64 {
	k := streamKey{m.Vertex, m.Pipeline, m.Attempt, m.Subtask}
	s := streams[k]
	if s == nil {
		streams[k] = &stream{sent: m.Sent, dropped: m.Dropped}
		return 0
	}
	missed := m.Sent - int64(len(m.Rows)) - s.sent + m.Dropped - s.dropped
	s.sent, s.dropped = m.Sent, m.Dropped
	return max(missed, 0)
}
