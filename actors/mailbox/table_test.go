package mailbox_test

import (
	"fmt"
	"testing"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/stactor/stactor/actors/mailbox"
	"github.com/stactor/stactor/messages"
)

// designTable is DESIGN §3's priority table, highest row first. A source's
// own Poll is listed with the default row: stop-reading must overtake a
// source's queued polls (DESIGN §5, savepoint), and a poll must not
// overtake a split assignment or a trigger. CloseTask is there too: it
// comes after the final checkpoint's notices, not before them.
var designTable = []struct {
	level string
	msgs  []func() any
}{
	{"highest", []func() any{
		func() any { return &messages.CancelTask{} },
	}},
	{"high", []func() any{
		func() any { return &messages.Barrier{} },
		func() any { return &messages.StopReading{} },
	}},
	{"default", []func() any{
		func() any { return &messages.AddSplits{} },
		func() any { return &messages.NoMoreSplits{} },
		func() any { return &messages.CheckpointTrigger{} },
		func() any { return &messages.CheckpointDone{} },
		func() any { return &messages.Credit{} },
		func() any { return &messages.Poll{} },
		func() any { return &messages.CloseTask{} },
	}},
	{"low", []func() any{
		func() any { return &messages.Batch{} },
		func() any { return &messages.BarrierMarker{} },
		func() any { return &messages.EndOfData{} },
	}},
}

// heldDispatcher keeps the mailbox's run until the test releases it, so
// every message is queued before the first is taken.
type heldDispatcher struct{ run func() }

func (d *heldDispatcher) Schedule(fn func()) { d.run = fn }
func (d *heldDispatcher) Throughput() int    { return 300 }

// orderInvoker records the order the mailbox hands messages over.
type orderInvoker struct{ got []any }

func (i *orderInvoker) InvokeSystemMessage(any) {}
func (i *orderInvoker) InvokeUserMessage(m any) {
	if env, ok := m.(*actor.MessageEnvelope); ok {
		m = env.Message
	}
	i.got = append(i.got, m)
}
func (i *orderInvoker) EscalateFailure(reason any, _ any) { panic(reason) }

// deliver queues msgs in order into a fresh mailbox and returns the order
// it hands them to the actor.
func deliver(msgs ...any) []any {
	d, inv := &heldDispatcher{}, &orderInvoker{}
	mb := mailbox.Producer()()
	mb.RegisterHandlers(inv, d)
	for _, m := range msgs {
		mb.PostUserMessage(m)
	}
	d.run()
	return inv.got
}

// Every pair of messages of DESIGN §3's table, queued in both orders and
// sent both plainly and wrapped in an envelope (Request, a remote sender):
// the one of the higher row is taken first whatever the order it came in,
// and two of one row keep their order. Raising or lowering any message's
// level moves it against some other row and fails here.
func TestDesignPriorityTable(t *testing.T) {
	type entry struct {
		row  int
		make func() any
	}
	var all []entry
	for r, row := range designTable {
		for _, mk := range row.msgs {
			all = append(all, entry{r, mk})
		}
	}
	name := func(e entry) string { return fmt.Sprintf("%T (%s)", e.make(), designTable[e.row].level) }
	for _, a := range all {
		for _, b := range all {
			for _, wrap := range []bool{false, true} {
				first, second := a.make(), b.make()
				var sent any = second
				if wrap {
					sent = &actor.MessageEnvelope{Message: second, Header: actor.EmptyMessageHeader}
				}
				got := deliver(first, sent)
				// b's row is higher (a smaller index) than a's: b overtakes.
				wantFirst := first
				if b.row < a.row {
					wantFirst = second
				}
				if got[0] != wantFirst {
					t.Errorf("%s queued before %s (envelope %v): %T was taken first", name(a), name(b), wrap, got[0])
				}
			}
		}
	}
}

// The level numbers keep the rows apart and inside the mailbox's range.
func TestPriorityLevelsAreDistinct(t *testing.T) {
	levels := []int8{messages.PriorityLow, messages.PriorityDefault, messages.PriorityHigh, messages.PriorityHighest}
	for i := 1; i < len(levels); i++ {
		if levels[i] <= levels[i-1] {
			t.Fatalf("levels %v are not increasing", levels)
		}
	}
	if levels[0] < 0 || levels[len(levels)-1] >= mailbox.Levels {
		t.Fatalf("levels %v outside 0..%d", levels, mailbox.Levels-1)
	}
	if messages.PriorityDefault != actor.DefaultPriority {
		t.Fatalf("PriorityDefault %d is not protoactor's default %d, where a message without GetPriority lands", messages.PriorityDefault, actor.DefaultPriority)
	}
}
