package mailbox_test

import (
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/actors/mailbox"
	"github.com/stactor/stactor/messages"
)

// recorder blocks on its first message until released, then records the
// order of everything else it receives.
type recorder struct {
	release chan struct{}
	mu      sync.Mutex // guards got
	got     []string
	done    chan struct{}
	want    int
	mb      *mailbox.Mailbox
}

type blockMsg struct{}

func (r *recorder) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *blockMsg:
		<-r.release
	case *messages.Batch:
		r.add("batch")
	case *messages.CancelTask:
		r.add("cancel")
	case *messages.Credit:
		r.add("credit")
	default:
		_ = m
	}
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, s)
	if len(r.got) == r.want {
		close(r.done)
	}
}

func quietSystem() *actor.ActorSystem {
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
}

func spawnRecorder(t *testing.T, sys *actor.ActorSystem, want int) (*recorder, *actor.PID) {
	t.Helper()
	r := &recorder{release: make(chan struct{}), done: make(chan struct{}), want: want}
	produce := func() actor.Mailbox {
		r.mb = mailbox.Producer()().(*mailbox.Mailbox)
		return r.mb
	}
	pid, err := sys.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return r }, actor.WithMailbox(produce)), "recorder")
	if err != nil {
		t.Fatal(err)
	}
	sys.Root.Send(pid, &blockMsg{})
	return r, pid
}

func (r *recorder) wait(t *testing.T) []string {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("recorder got only %v", r.got)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

func queueBatches(sys *actor.ActorSystem, pid *actor.PID, n int) {
	for i := 0; i < n; i++ {
		sys.Root.Send(pid, &messages.Batch{Seq: int64(i + 1)})
	}
}

// checkOvertakes asserts the cancel and the credit came before every batch.
func checkOvertakes(t *testing.T, got []string) {
	t.Helper()
	if got[0] != "cancel" {
		t.Fatalf("cancel did not overtake the queued batches: %v", got[:5])
	}
	if got[1] != "credit" {
		t.Fatalf("credit (default level) did not overtake the queued batches: %v", got[:5])
	}
}

func TestPriorityOvertakesWithPlainSend(t *testing.T) {
	sys := quietSystem()
	defer sys.Shutdown()
	r, pid := spawnRecorder(t, sys, 102)
	queueBatches(sys, pid, 100)
	sys.Root.Send(pid, &messages.Credit{})
	sys.Root.Send(pid, &messages.CancelTask{})
	close(r.release)
	checkOvertakes(t, r.wait(t))
}

// A message sent with Request arrives wrapped in an envelope with a
// sender; protoactor's own priority mailbox would put it at the default
// level.
func TestPriorityOvertakesWithRequest(t *testing.T) {
	sys := quietSystem()
	defer sys.Shutdown()
	r, pid := spawnRecorder(t, sys, 102)
	queueBatches(sys, pid, 100)
	sender, _ := sys.Root.SpawnNamed(actor.PropsFromFunc(func(actor.Context) {}), "sender")
	sys.Root.RequestWithCustomSender(pid, &messages.Credit{}, sender)
	sys.Root.RequestWithCustomSender(pid, &messages.CancelTask{}, sender)
	close(r.release)
	checkOvertakes(t, r.wait(t))
}

func TestPriorityLevels(t *testing.T) {
	env := &actor.MessageEnvelope{Message: &messages.CancelTask{}}
	cases := []struct {
		m    any
		want int8
	}{
		{&messages.CancelTask{}, messages.PriorityHighest},
		{env, messages.PriorityHighest},
		{&messages.Batch{}, messages.PriorityLow},
		{&messages.EndOfData{}, messages.PriorityLow},
		{&messages.Credit{}, messages.PriorityDefault},
		{&messages.StopReading{}, messages.PriorityHigh},
		{&messages.ReadRate{}, messages.PriorityHigh},
		{&actor.MessageEnvelope{Message: &messages.ReadRate{}}, messages.PriorityHigh},
		{"plain", actor.DefaultPriority},
	}
	for _, c := range cases {
		if got := mailbox.Priority(c.m); got != c.want {
			t.Errorf("Priority(%T) = %d, want %d", c.m, got, c.want)
		}
	}
}
