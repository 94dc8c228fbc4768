package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// kind is a kind of fault.
type kind string

const (
	killWorker kind = "SIGKILL a worker"
	killLeader kind = "SIGKILL the leader"
	killNATS   kind = "SIGKILL the NATS server"
	killConsul kind = "SIGKILL the Consul agent"
	killDB     kind = "SIGKILL PostgreSQL"
	pause      kind = "SIGSTOP a node past its TTL, SIGCONT"
	partition  kind = "cut a node off the network"
	diskFull   kind = "fill the sink's disk (staging, output)"
	corruptCP  kind = "corrupt the latest checkpoint, SIGKILL the leader"
	truncateCP kind = "truncate the latest checkpoint, SIGKILL the leader"
	clockJump  kind = "restart a node with its clocks jumped"
	storeFull  kind = "fill the checkpoint store's disk (JetStream), restart NATS"
)

// kinds in the table's order.
var kinds = []kind{killWorker, killLeader, killNATS, killConsul, killDB, pause, partition, diskFull, storeFull, corruptCP, truncateCP, clockJump}

// fault is one scheduled fault: everything random about it is drawn from
// the seed when the schedule is made, so a seed replays the same faults
// (the moments they hit depend on how fast the machine runs).
type fault struct {
	n     int
	kind  kind
	pick  int           // which node or job, modulo the candidates then
	hold  time.Duration // how long it lasts before it is undone
	gap   time.Duration // the pause after recovery before the next fault
	clock time.Duration // clockJump: the offset
}

// schedule draws n faults from seed: every kind once in each round of
// len(kinds) faults, in an order of the round's own, so that a short run
// covers every kind.
func schedule(seed int64, n int) []fault {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x636861)) //nolint:gosec // a test's schedule
	var fs []fault
	for len(fs) < n {
		round := slices.Clone(kinds)
		rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		for _, k := range round {
			if len(fs) == n {
				break
			}
			f := fault{n: len(fs) + 1, kind: k, pick: rng.IntN(1 << 20),
				gap: time.Duration(200+rng.IntN(1800)) * time.Millisecond}
			switch k {
			case pause, partition:
				// past the 1 s check TTL, sometimes past the leader's 10 s
				// session TTL too
				f.hold = time.Duration(2000+rng.IntN(10000)) * time.Millisecond
			case diskFull, storeFull:
				f.hold = time.Duration(1500+rng.IntN(4000)) * time.Millisecond
			case clockJump:
				f.hold = time.Duration(200+rng.IntN(1000)) * time.Millisecond
				f.clock = time.Duration(1+rng.IntN(30*24)) * time.Hour
			default: // how long the killed process stays dead
				f.hold = time.Duration(300+rng.IntN(3000)) * time.Millisecond
			}
			fs = append(fs, f)
		}
	}
	return fs
}

// inject applies f and undoes it after f.hold; it returns what it hit.
func (h *harness) inject(f fault) (string, error) {
	c := h.c
	switch f.kind {
	case killWorker, killLeader, clockJump:
		leader, waited, err := c.awaitLeader()
		if err != nil {
			return "", fmt.Errorf("finding the leader: %w", err)
		}
		var victim string
		switch f.kind {
		case killLeader:
			victim = leader
		case killWorker:
			var workers []string
			for _, id := range c.ids() {
				if id != leader {
					workers = append(workers, id)
				}
			}
			victim = workers[f.pick%len(workers)]
		default:
			victim = c.ids()[f.pick%len(c.nodes)]
		}
		c.kill(victim)
		time.Sleep(f.hold)
		var clock time.Duration
		if f.kind == clockJump {
			clock = f.clock
		}
		c.start(victim, clock)
		what := victim
		if victim == leader {
			what += " (leader)"
		}
		if clock > 0 {
			what += fmt.Sprintf(", monotonic clock +%s", clock)
		}
		return what + waitedFor(waited), nil
	case killNATS:
		h.nats.kill()
		time.Sleep(f.hold)
		return "nats-server", h.nats.start()
	case killConsul:
		h.agent.Kill()
		time.Sleep(f.hold)
		return "consul", h.agent.Restart()
	case killDB:
		if err := h.pg.Crash(); err != nil {
			return "postgres", err
		}
		time.Sleep(f.hold)
		return "postgres", h.pg.Restart()
	case pause:
		victim := c.ids()[f.pick%len(c.nodes)]
		if err := c.signal(victim, syscall.SIGSTOP); err != nil {
			return victim, err
		}
		time.Sleep(f.hold)
		return victim, c.signal(victim, syscall.SIGCONT)
	case partition:
		victim := c.ids()[f.pick%len(c.nodes)]
		h.net.cut(c.nodes[victim].slot)
		time.Sleep(f.hold)
		h.net.heal(c.nodes[victim].slot)
		return victim, nil
	case diskFull:
		if err := h.disk.fill(); err != nil {
			return "", err
		}
		time.Sleep(f.hold)
		return h.disk.dir, h.disk.free()
	case storeFull:
		return h.fillStore(f)
	case corruptCP, truncateCP:
		what, err := h.damageCheckpoint(f)
		if err != nil {
			return what, err
		}
		leader, waited, err := c.awaitLeader()
		if err != nil {
			return what, fmt.Errorf("finding the leader: %w", err)
		}
		c.kill(leader)
		time.Sleep(f.hold)
		c.start(leader, 0)
		return what + ", leader " + leader + waitedFor(waited), nil
	}
	return "", fmt.Errorf("unknown fault kind %q", f.kind)
}

// waitedFor says, for a fault's target, how long it waited for a leader
// (nothing when one was there).
func waitedFor(d time.Duration) string {
	if d < time.Second {
		return ""
	}
	return fmt.Sprintf(", after %s without a leader", d.Round(100*time.Millisecond))
}

// damageCheckpoint corrupts (a byte flipped in the middle) or truncates
// (to half) the newest completed checkpoint of a running job in the
// cluster's checkpoint storage, the JetStream object store.
func (h *harness) damageCheckpoint(f fault) (string, error) {
	nc, err := nats.Connect(h.nats.url())
	if err != nil {
		return "", err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	obs, err := js.ObjectStore(ctx, "stactor_"+clusterName+"_checkpoints")
	if err != nil {
		return "", err
	}
	infos, err := obs.List(ctx)
	if err != nil {
		return "no checkpoint yet", nil
	}
	// the newest completed checkpoint of each running job that has one
	newestOf := map[string]string{}
	var ids []string
	for _, j := range h.running() {
		for _, in := range infos {
			if strings.HasPrefix(in.Name, j.id+"/") && strings.Contains(in.Name, "/completed/") && in.Name > newestOf[j.id] {
				newestOf[j.id] = in.Name
			}
		}
		if newestOf[j.id] != "" {
			ids = append(ids, j.id)
		}
	}
	if len(ids) == 0 {
		return "no running job has a checkpoint yet", nil
	}
	newest := newestOf[ids[f.pick%len(ids)]]
	data, err := obs.GetBytes(ctx, newest)
	if err != nil {
		return newest, err
	}
	how := "corrupted"
	if f.kind == truncateCP {
		data, how = data[:len(data)/2], "truncated"
	} else {
		data[len(data)/2] ^= 0x5a
	}
	if _, err := obs.PutBytes(ctx, newest, data); err != nil {
		return newest, err
	}
	return how + " " + newest, nil
}
