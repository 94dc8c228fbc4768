package node

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/resources"
)

// fakeProc writes a /proc with one cpu line and memory figures.
func fakeProc(t *testing.T, dir, cpu string, totalKB, availKB int) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("stat", "cpu "+cpu+"\ncpu0 1 2 3 4 5 6 7 8\nintr 1\n")
	write("meminfo", "MemTotal: "+strconv.Itoa(totalKB)+" kB\nMemFree: 1 kB\nMemAvailable: "+strconv.Itoa(availKB)+" kB\n")
	return dir
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestLoadSampler(t *testing.T) {
	dir := t.TempDir()
	// user nice system idle iowait irq softirq steal
	fakeProc(t, dir, "100 0 100 700 100 0 0 0", 1000, 250)
	s := &loadSampler{proc: dir}
	r, err := s.sample()
	if err != nil {
		t.Fatal(err)
	}
	if r.CPU != 0 || !near(r.Memory, 0.75) || !near(r.Load, 0.375) {
		t.Fatalf("first sample %+v: CPU unknown (0), memory 0.75", r)
	}
	// 1000 more jiffies, 200 of them idle or iowait: 80% busy.
	fakeProc(t, dir, "500 0 500 850 150 0 0 0", 1000, 250)
	if r, err = s.sample(); err != nil {
		t.Fatal(err)
	}
	if !near(r.CPU, 0.8) || !near(r.Load, (0.8+0.75)/2) {
		t.Fatalf("second sample %+v, want CPU 0.8", r)
	}
	if _, err := (&loadSampler{proc: t.TempDir()}).sample(); err == nil {
		t.Fatal("a machine without /proc gave a load")
	}
}

// Workers' reports reach the leader's ResourceManager over NATS, and
// SYSTEM_LOAD places on the less loaded worker.
func TestLoadReportsReachTheResourceManager(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	defer srv.Shutdown()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	rm := sys.Root.Spawn(actor.PropsFromProducer(resource.New(resource.Options{Strategy: resources.SystemLoad}, zerolog.Nop())))
	for _, id := range []string{"busy", "idle"} {
		sys.Root.Send(rm, &resource.WorkerUp{Worker: resources.Worker{ID: id, Address: "nowhere", FixedSlots: 4}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go feedLoads(ctx, nc, "stactor.t", sys.Root, rm, zerolog.Nop())
	time.Sleep(100 * time.Millisecond)                                                    // subscribed
	busy := fakeProc(t, filepath.Join(t.TempDir(), "busy"), "1 0 1 1 0 0 0 0", 1000, 100) // memory 90% used
	idle := fakeProc(t, filepath.Join(t.TempDir(), "idle"), "1 0 1 1 0 0 0 0", 1000, 900) // 10%
	go reportLoad(ctx, nc, "stactor.t", "busy", 20*time.Millisecond, &loadSampler{proc: busy}, zerolog.Nop())
	go reportLoad(ctx, nc, "stactor.t", "idle", 20*time.Millisecond, &loadSampler{proc: idle}, zerolog.Nop())
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := sys.Root.RequestFuture(rm, &resource.GetWorkers{}, time.Second).Result()
		if err != nil {
			t.Fatal(err)
		}
		loads := map[string]float64{}
		for _, w := range res.(*resource.Workers).Workers {
			loads[w.ID] = w.Load
		}
		if near(loads["busy"], 0.45) && near(loads["idle"], 0.05) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("loads %v, want busy 0.45 and idle 0.05", loads)
		}
		time.Sleep(20 * time.Millisecond)
	}
	got := make(chan any, 1)
	probe := sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *resource.Granted, *resource.Refused:
			got <- m
		}
	}))
	sys.Root.Send(rm, &resource.Request{Owner: "j", N: 1, ReplyTo: probe})
	select {
	case m := <-got:
		g, ok := m.(*resource.Granted)
		if !ok || g.Slots[0].ID.Worker != "idle" {
			t.Fatalf("SYSTEM_LOAD answered %+v, want a slot on idle", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer to the slot request")
	}
}
