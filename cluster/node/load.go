package node

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/natschan"
)

// System load for SYSTEM_LOAD placement (DESIGN §7). Every worker samples
// its machine's CPU and memory use and publishes it on NATS every
// loadInterval, on <prefix>.load.<node> (a subject beside DESIGN §8's
// data, tap and metrics subjects); the leader subscribes to them all and
// hands each report to its ResourceManager. NATS and not Consul: a Consul
// check's output changes reach the catalog only every few minutes
// (check_update_interval), and a report is only worth its freshness — a
// lost one is simply replaced by the next.

// loadInterval is how often a worker reports its load.
const loadInterval = 2 * time.Second

// loadReport is one report, as JSON.
type loadReport struct {
	Node   string  `json:"node"`
	CPU    float64 `json:"cpu"`    // share of the machine's CPU time in use since the last sample
	Memory float64 `json:"memory"` // share of its memory in use (1 - MemAvailable/MemTotal)
	Load   float64 `json:"load"`   // what placement uses: the mean of the two
}

func loadSubject(prefix, node string) string { return prefix + ".load." + natschan.EscapeToken(node) }

// loadSampler reads Linux's /proc; CPU use is the busy share of the time
// between two samples, so the first sample reports memory only.
type loadSampler struct {
	proc        string // "/proc", a test's folder otherwise
	idle, total uint64
	haveCPU     bool
}

// sample takes a sample; an error means the machine does not say (not
// Linux): the node then reports nothing and SYSTEM_LOAD places by slots.
func (s *loadSampler) sample() (loadReport, error) {
	idle, total, err := readCPU(s.proc + "/stat")
	if err != nil {
		return loadReport{}, err
	}
	mem, err := readMemory(s.proc + "/meminfo")
	if err != nil {
		return loadReport{}, err
	}
	var cpu float64
	if s.haveCPU && total > s.total {
		busy := float64((total - s.total) - min(idle-s.idle, total-s.total))
		cpu = busy / float64(total-s.total)
	}
	s.idle, s.total, s.haveCPU = idle, total, true
	return loadReport{CPU: cpu, Memory: mem, Load: (cpu + mem) / 2}, nil
}

// readCPU is the idle (idle + iowait) and total jiffies of /proc/stat's
// "cpu" line.
func readCPU(path string) (idle, total uint64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("%s: no cpu line", path)
	}
	for i, v := range f[1:] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		total += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	return idle, total, nil
}

// readMemory is the share of memory in use from /proc/meminfo.
func readMemory(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var memTotal, avail float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		if err != nil {
			continue
		}
		switch k {
		case "MemTotal":
			memTotal = n
		case "MemAvailable":
			avail = n
		}
	}
	if memTotal <= 0 {
		return 0, fmt.Errorf("%s: no MemTotal", path)
	}
	return min(max(1-avail/memTotal, 0), 1), nil
}

// reportLoad publishes the node's load every interval until ctx ends.
func reportLoad(ctx context.Context, nc *nats.Conn, prefix, node string, interval time.Duration, s *loadSampler, log zerolog.Logger) {
	subject := loadSubject(prefix, node)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		r, err := s.sample()
		if err != nil {
			log.Info().Err(err).Msg("no system load to report; SYSTEM_LOAD will place by slots only")
			return
		}
		r.Node = node
		if b, err := json.Marshal(r); err == nil {
			_ = nc.Publish(subject, b) // a lost report is replaced by the next
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// feedLoads hands every worker's load reports to the ResourceManager rm
// until ctx ends.
func feedLoads(ctx context.Context, nc *nats.Conn, prefix string, root *actor.RootContext, rm *actor.PID, log zerolog.Logger) {
	sub, err := nc.Subscribe(prefix+".load.*", func(msg *nats.Msg) {
		var r loadReport
		if err := json.Unmarshal(msg.Data, &r); err != nil || r.Node == "" {
			log.Debug().Str("subject", msg.Subject).Msg("ignoring a malformed load report")
			return
		}
		root.Send(rm, &resource.WorkerLoad{ID: r.Node, Load: r.Load})
	})
	if err != nil {
		log.Warn().Err(err).Msg("subscribing to load reports; SYSTEM_LOAD will place by slots only")
		return
	}
	<-ctx.Done()
	_ = sub.Unsubscribe()
}
