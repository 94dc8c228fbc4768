//go:build !race

// protoactor's remote.Start sets gRPC's global logger on every start, which
// the race detector reports against the first server's goroutines when two
// systems start in one process; this test runs in the suite's non-race pass.

package mailbox_test

import (
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"

	"github.com/stactor/stactor/messages"
)

// From another actor system over protoactor remote, with a sender: the
// message arrives as an envelope.
func TestPriorityOvertakesFromRemoteSystem(t *testing.T) {
	recvSys := quietSystem()
	defer recvSys.Shutdown()
	recvRemote := remote.NewRemote(recvSys, remote.Configure("127.0.0.1", 0))
	recvRemote.Start()
	defer recvRemote.Shutdown(false)
	sendSys := quietSystem()
	defer sendSys.Shutdown()
	sendRemote := remote.NewRemote(sendSys, remote.Configure("127.0.0.1", 0))
	sendRemote.Start()
	defer sendRemote.Shutdown(false)

	r, pid := spawnRecorder(t, recvSys, 102)
	queueBatches(recvSys, pid, 100)
	sender, _ := sendSys.Root.SpawnNamed(actor.PropsFromFunc(func(actor.Context) {}), "sender")
	remotePID := actor.NewPID(recvSys.Address(), pid.Id)
	sendSys.Root.RequestWithCustomSender(remotePID, &messages.Credit{}, sender)
	sendSys.Root.RequestWithCustomSender(remotePID, &messages.CancelTask{}, sender)
	// The remote messages are in flight; release only once both are queued.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if r.mb.UserMessageCount() >= 102 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(r.release)
	checkOvertakes(t, r.wait(t))
}
