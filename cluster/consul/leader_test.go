package consul_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stactor/stactor/cluster/consul"
)

type campaignResult struct {
	id     string
	leader *consul.Leader
	err    error
	at     time.Time
}

// campaign runs Campaign for r's node on its own goroutine and sends the
// result on out. Leaders are resigned when the test ends.
func campaign(ctx context.Context, r *consul.Registration, out chan<- campaignResult) {
	n := r.Node()
	go func() {
		l, err := consul.Campaign(ctx, client, n.Cluster, n.ID, r.CheckID(), consul.WithAddress(n.Address))
		out <- campaignResult{id: n.ID, leader: l, err: err, at: time.Now()}
	}()
}

func resignAtEnd(t *testing.T, l *consul.Leader) {
	t.Cleanup(func() { _ = l.Resign(context.Background()) })
}

// win waits for one campaign result, which must be a win.
func win(t *testing.T, results <-chan campaignResult, within time.Duration) campaignResult {
	t.Helper()
	select {
	case res := <-results:
		if res.err != nil {
			t.Fatalf("campaign of %s: %v", res.id, res.err)
		}
		resignAtEnd(t, res.leader)
		return res
	case <-time.After(within):
		t.Fatalf("nobody won within %s", within)
	}
	panic("unreachable")
}

// noWin checks that no campaign returns for d.
func noWin(t *testing.T, results <-chan campaignResult, d time.Duration) {
	t.Helper()
	select {
	case res := <-results:
		if res.leader != nil {
			resignAtEnd(t, res.leader)
		}
		t.Fatalf("%s's campaign returned while the lock was held: %v", res.id, res.err)
	case <-time.After(d):
	}
}

// leadAndStandBy campaigns for lead, which wins, then for standby, which
// must wait: its result comes on results.
func leadAndStandBy(ctx context.Context, t *testing.T, lead, standby *consul.Registration) (campaignResult, chan campaignResult) {
	t.Helper()
	results := make(chan campaignResult, 2)
	campaign(ctx, lead, results)
	won := win(t, results, 10*time.Second)
	campaign(ctx, standby, results)
	noWin(t, results, 500*time.Millisecond)
	return won, results
}

func checkLeader(t *testing.T, cluster string, want consul.Node, term uint64) {
	t.Helper()
	id, addr, got, err := consul.CurrentLeader(context.Background(), client, cluster)
	if err != nil {
		t.Fatal(err)
	}
	if id != want.ID || addr != want.Address || got != term {
		t.Fatalf("current leader %s at %s, term %d; want %s at %s, term %d", id, addr, got, want.ID, want.Address, term)
	}
}

func TestLeaderFailsOverWhenItsNodeDies(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	if _, _, _, err := consul.CurrentLeader(context.Background(), client, cluster); !errors.Is(err, consul.ErrNoLeader) {
		t.Fatalf("before any campaign: %v, want ErrNoLeader", err)
	}
	na, nb := testNode(cluster, "a"), testNode(cluster, "b")
	nb.Address = "127.0.0.1:7002"
	regs := map[string]*consul.Registration{na.ID: register(t, na), nb.ID: register(t, nb)} // default TTL, 5s

	ctx := testCtx(t, time.Minute)
	results := make(chan campaignResult, 2)
	campaign(ctx, regs[na.ID], results)
	campaign(ctx, regs[nb.ID], results)
	first := win(t, results, 10*time.Second)
	noWin(t, results, time.Second)
	checkLeader(t, cluster, regs[first.id].Node(), first.leader.Term())

	// The winner's process "dies": it stops passing its check. Its
	// session is tied to that check, so it loses the lock.
	died := time.Now()
	regs[first.id].StopHeartbeat()
	second := win(t, results, 20*time.Second)
	took := second.at.Sub(died)
	select {
	case <-first.leader.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("the dead leader's Lost is not closed")
	}
	t.Logf("%s took over from %s %s after its heartbeat stopped (ttl 5s, lock delay 1s)", second.id, first.id, took.Round(time.Millisecond))
	if took >= 20*time.Second {
		t.Fatalf("failover took %s", took)
	}
	if second.leader.Term() <= first.leader.Term() {
		t.Fatalf("new term %d not above old term %d", second.leader.Term(), first.leader.Term())
	}
	checkLeader(t, cluster, regs[second.id].Node(), second.leader.Term())
	select {
	case <-second.leader.Lost():
		t.Fatal("the new leader lost at once")
	default:
	}
}

func TestResignHandsOverFast(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	ra, rb := register(t, testNode(cluster, "a")), register(t, testNode(cluster, "b"))
	a, results := leadAndStandBy(testCtx(t, time.Minute), t, ra, rb)

	resigned := time.Now()
	if err := a.leader.Resign(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.leader.Lost():
	default:
		t.Fatal("Lost not closed by Resign")
	}
	b := win(t, results, 2*time.Second)
	t.Logf("handed over in %s", b.at.Sub(resigned).Round(time.Millisecond))
	if b.leader.Term() <= a.leader.Term() {
		t.Fatalf("new term %d not above old term %d", b.leader.Term(), a.leader.Term())
	}
	if err := a.leader.Resign(context.Background()); err != nil {
		t.Fatalf("second resign: %v", err)
	}
}

func TestLeaderLosesWhenDeregistered(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	r := register(t, testNode(cluster, "a"))
	l, err := consul.Campaign(testCtx(t, time.Minute), client, cluster, r.Node().ID, r.CheckID())
	if err != nil {
		t.Fatal(err)
	}
	resignAtEnd(t, l)
	if err := r.Deregister(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("leadership survived the node's deregistration")
	}
}

func TestCampaignEndsWithItsContext(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	ra, rb := register(t, testNode(cluster, "a")), register(t, testNode(cluster, "b"))
	ctx, cancel := context.WithCancel(context.Background())
	results := make(chan campaignResult, 2)
	campaign(ctx, ra, results)
	a := win(t, results, 10*time.Second)
	campaign(ctx, rb, results)
	noWin(t, results, 300*time.Millisecond)

	cancel() // ends b's campaign and a's leadership
	select {
	case res := <-results:
		if !errors.Is(res.err, context.Canceled) {
			t.Fatalf("campaign after cancel: %v, %v", res.leader, res.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("campaign did not end with its context")
	}
	select {
	case <-a.leader.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("leadership did not end with its context")
	}
	checkFor(t, 5*time.Second, func() error {
		_, _, _, err := consul.CurrentLeader(context.Background(), client, cluster)
		if !errors.Is(err, consul.ErrNoLeader) {
			return errors.New("the lock is still held")
		}
		return nil
	})
}

func TestCampaignNeedsAPassingCheck(t *testing.T) {
	need(t)
	t.Parallel()
	_, err := consul.Campaign(testCtx(t, 10*time.Second), client, newCluster(t), "ghost", consul.CheckID("ghost"))
	if err == nil {
		t.Fatal("a node without a check campaigned")
	}
}

func TestCampaignEndsWhenItsNodeFails(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	ra := register(t, testNode(cluster, "a"))
	rb := register(t, testNode(cluster, "b"), consul.WithTTL(time.Second))
	ctx := testCtx(t, time.Minute)
	results := make(chan campaignResult, 2)
	campaign(ctx, ra, results)
	win(t, results, 10*time.Second)
	campaign(ctx, rb, results)
	noWin(t, results, 300*time.Millisecond)

	rb.StopHeartbeat() // b dies while it waits: its session goes with its check
	select {
	case res := <-results:
		if !errors.Is(res.err, consul.ErrSessionInvalidated) {
			t.Fatalf("campaign of a failed node: %v, %v", res.leader, res.err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the campaign of a failed node goes on")
	}
}

// A node restarted within its check's TTL passes the same check again, so
// the session its dead process led with stays valid; registering again
// destroys it, and the lock goes to another node after the lock delay
// rather than after the session's own TTL. (The old session's renewal
// still runs in this process: without the release nobody else would ever
// win.)
func TestRestartedNodeReleasesItsPredecessorsLock(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	na := testNode(cluster, "a")
	ra, rb := register(t, na), register(t, testNode(cluster, "b"))
	a, results := leadAndStandBy(testCtx(t, time.Minute), t, ra, rb)

	ra.StopHeartbeat() // a's process dies, and at once
	restarted := time.Now()
	register(t, na) // a new one registers: the check never turned critical
	select {
	case <-a.leader.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("the predecessor's leadership survived the node's new registration")
	}
	b := win(t, results, 5*time.Second)
	t.Logf("%s took over %s after %s registered again (session TTL 10s, lock delay 1s)", b.id, b.at.Sub(restarted).Round(time.Millisecond), na.ID)
	if b.id != rb.Node().ID {
		t.Fatalf("%s won, want %s", b.id, rb.Node().ID)
	}
}
