package consul_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stactor/stactor/cluster/consul"
)

// testNode returns a node of cluster. Service IDs are per agent and every
// test shares the one agent, so the node ID carries the cluster's name;
// tests name nodes by the rest (find).
func testNode(cluster, id string) consul.Node {
	return consul.Node{
		ID:       cluster + "-" + id,
		Cluster:  cluster,
		Address:  "127.0.0.1:7001",
		Roles:    []string{"master", "worker"},
		CPU:      2.5,
		MemoryMB: 4096,
		Tags:     map[string]string{"zone": "a", "disk-type": "ssd"},
		HTTP:     "127.0.0.1:8080",
	}
}

// register registers n and deregisters it when the test ends.
func register(t *testing.T, n consul.Node, opts ...consul.Option) *consul.Registration {
	t.Helper()
	r, err := consul.Register(context.Background(), client, n, opts...)
	if err != nil {
		t.Fatalf("register %s: %v", n.ID, err)
	}
	t.Cleanup(func() {
		if err := r.Deregister(context.Background()); err != nil {
			t.Errorf("deregister %s: %v", n.ID, err)
		}
	})
	return r
}

// memberState polls Members until fn accepts them.
func waitMembers(t *testing.T, cluster string, total time.Duration, fn func([]consul.Member) error) {
	t.Helper()
	checkFor(t, total, func() error {
		ms, err := consul.Members(context.Background(), client, cluster)
		if err != nil {
			return err
		}
		return fn(ms)
	})
}

func TestRegisterShowsHealthyMemberWithMetadata(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	n := testNode(cluster, "n1")
	register(t, n)

	ms, err := consul.Members(context.Background(), client, cluster)
	if err != nil {
		t.Fatal(err)
	}
	want := []consul.Member{{Node: n, Healthy: true}}
	if !reflect.DeepEqual(ms, want) {
		t.Fatalf("members:\n got %+v\nwant %+v", ms, want)
	}
}

func TestRegisterRefusesBadNode(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	for name, n := range map[string]consul.Node{
		"no port":     {ID: "x", Cluster: cluster, Address: "127.0.0.1"},
		"tag key dot": {ID: "x", Cluster: cluster, Address: "h:1", Tags: map[string]string{"a.b": "c"}},
		"no id":       {Cluster: cluster, Address: "h:1"},
	} {
		if _, err := consul.Register(context.Background(), client, n); err == nil {
			t.Errorf("%s: registered", name)
		}
	}
}

func TestStoppedHeartbeatTurnsCritical(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	const ttl = 2 * time.Second
	r := register(t, testNode(cluster, "n1"), consul.WithTTL(ttl))
	waitMembers(t, cluster, 5*time.Second, healthy("n1"))

	start := time.Now()
	r.StopHeartbeat()
	// Critical ttl after the last pass, which is at most ttl/3 old; allow
	// for the agent and a loaded machine.
	waitMembers(t, cluster, ttl+2*time.Second, unhealthy("n1"))
	t.Logf("critical %s after the heartbeat stopped (ttl %s)", time.Since(start).Round(time.Millisecond), ttl)
}

func TestDeregisterRemovesMember(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	r := register(t, testNode(cluster, "n1"))
	waitMembers(t, cluster, 5*time.Second, healthy("n1"))
	if err := r.Deregister(context.Background()); err != nil {
		t.Fatal(err)
	}
	ms, err := consul.Members(context.Background(), client, cluster)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 0 {
		t.Fatalf("members after deregister: %+v", ms)
	}
	if err := r.Deregister(context.Background()); err != nil {
		t.Fatalf("second deregister: %v", err)
	}
}

func TestHeartbeatRegistersAgainWhenTheAgentForgets(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	n := testNode(cluster, "n1")
	r := register(t, n, consul.WithTTL(time.Second))
	// As if the agent restarted: it no longer knows the service.
	if err := client.Agent().ServiceDeregister(n.ID); err != nil {
		t.Fatal(err)
	}
	waitMembers(t, cluster, 3*time.Second, healthy("n1"))

	// A node the agent has reaped counts as deregistered.
	r.StopHeartbeat()
	if err := client.Agent().ServiceDeregister(n.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.Deregister(context.Background()); err != nil {
		t.Fatalf("deregister of a reaped node: %v", err)
	}
}

func TestWatchSeesJoinFailLeave(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	ch := consul.Watch(ctx, client, cluster)
	next := func(what string, fn func([]consul.Member) error) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		var last error
		for {
			select {
			case ms := <-ch:
				if last = fn(ms); last == nil {
					return
				}
			case <-timeout:
				t.Fatalf("%s: not seen in 10s (last: %v)", what, last)
			}
		}
	}
	next("empty", func(ms []consul.Member) error { return count(ms, 0) })

	register(t, testNode(cluster, "a"), consul.WithTTL(2*time.Second))
	next("a joins", healthy("a"))
	b := register(t, testNode(cluster, "b"), consul.WithTTL(2*time.Second))
	next("b joins", all(healthy("a"), healthy("b")))
	b.StopHeartbeat()
	next("b fails", all(healthy("a"), unhealthy("b")))
	if err := b.Deregister(context.Background()); err != nil {
		t.Fatal(err)
	}
	next("b leaves", all(healthy("a"), count1))

	cancel()
	for range ch { // closed when the watch ends
	}
}

func count(ms []consul.Member, n int) error {
	if len(ms) != n {
		return fmt.Errorf("%d members, want %d: %+v", len(ms), n, ms)
	}
	return nil
}

func count1(ms []consul.Member) error { return count(ms, 1) }

func find(ms []consul.Member, id string) (consul.Member, bool) {
	for _, m := range ms {
		if m.ID == m.Cluster+"-"+id {
			return m, true
		}
	}
	return consul.Member{}, false
}

func healthy(id string) func([]consul.Member) error {
	return func(ms []consul.Member) error {
		if m, ok := find(ms, id); !ok || !m.Healthy {
			return fmt.Errorf("%s not a healthy member: %+v", id, ms)
		}
		return nil
	}
}

func unhealthy(id string) func([]consul.Member) error {
	return func(ms []consul.Member) error {
		if m, ok := find(ms, id); !ok || m.Healthy {
			return fmt.Errorf("%s not a failing member: %+v", id, ms)
		}
		return nil
	}
}

func all(fns ...func([]consul.Member) error) func([]consul.Member) error {
	return func(ms []consul.Member) error {
		for _, fn := range fns {
			if err := fn(ms); err != nil {
				return err
			}
		}
		return nil
	}
}
