package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/stactor/stactor/cluster/consul"
)

// httpAddrs are the HTTP addresses the cluster's nodes registered in
// Consul, by node id.
func (c *testCluster) httpAddrs() map[string]string {
	c.t.Helper()
	ms := c.consulMembers()
	out := map[string]string{}
	for _, m := range ms {
		out[m.ID] = m.HTTP
	}
	return out
}

func (c *testCluster) consulMembers() []consul.Member {
	c.t.Helper()
	cfg := api.DefaultConfig()
	cfg.Address = c.consulAddr()
	cfg.Token = c.consulToken
	if c.consulTLS[0] != "" {
		cfg.Scheme = "https"
		cfg.TLSConfig = api.TLSConfig{CAFile: c.consulTLS[0], CertFile: c.consulTLS[1], KeyFile: c.consulTLS[2]}
	}
	client, err := api.NewClient(cfg)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ms, err := consul.Members(ctx, client, c.name)
	if err != nil {
		c.t.Fatal(err)
	}
	return ms
}

// httpGet GETs url with client and returns the status, Location header
// and body.
func httpGet(t *testing.T, client *http.Client, url string) (int, string, []byte) {
	t.Helper()
	res, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Location"), b
}

type overview struct {
	Leader                           string
	Works, TotalSlot, UnassignedSlot int
	FinishedJobs                     int
	Nodes                            []struct {
		NodeID  string
		HTTP    string
		Healthy bool
	}
}

// Three nodes with --http: the leader's /overview shows the three workers
// and their slots; a node that does not lead redirects to the leader, a
// job submitted through it runs, and /metrics counts it on the leader
// only.
func TestHttpOverviewAndRedirect(t *testing.T) {
	c := newCluster(t)
	for i := 1; i <= 3; i++ {
		c.startNode(fmt.Sprintf("n%d", i), "--http", "127.0.0.1:0")
	}
	leader := c.waitReady(3)
	addrs := c.httpAddrs()
	for id, a := range addrs {
		if a == "" || !strings.HasPrefix(a, "127.0.0.1:") || strings.HasSuffix(a, ":0") {
			t.Fatalf("node %s registered HTTP address %q", id, a)
		}
		if !strings.Contains(readFile(c.nodes[id].log), "http://"+a+"/") {
			t.Fatalf("node %s did not log its URL http://%s/", id, a)
		}
	}
	base := "http://" + addrs[leader]

	// The ResourceManager learns the workers from Consul's watch.
	var o overview
	eventually(t, 30*time.Second, "overview with 3 workers", func() error {
		code, _, b := httpGet(t, http.DefaultClient, base+"/overview")
		if code != http.StatusOK {
			return fmt.Errorf("%d: %s", code, b)
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return err
		}
		if o.Works != 3 {
			return fmt.Errorf("works %d: %s", o.Works, b)
		}
		return nil
	})
	// Each worker offers 2 CPU and 2048 MiB, slots of 0.25 CPU and 128 MiB.
	if o.Leader != leader || o.TotalSlot != 24 || o.UnassignedSlot != 24 || len(o.Nodes) != 3 {
		t.Fatalf("overview %+v, want leader %s, 24 slots, 3 nodes", o, leader)
	}
	for _, n := range o.Nodes {
		if !n.Healthy || n.HTTP != addrs[n.NodeID] {
			t.Fatalf("overview node %+v, registered HTTP %q", n, addrs[n.NodeID])
		}
	}

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var other string
	for id := range addrs {
		if id != leader {
			other = id
			break
		}
	}
	code, loc, b := httpGet(t, noFollow, "http://"+addrs[other]+"/overview?zone=a")
	if code != http.StatusTemporaryRedirect || loc != base+"/overview?zone=a" {
		t.Fatalf("GET /overview on %s (not the leader): %d Location %q: %s", other, code, loc, b)
	}

	// A job submitted through the non-leader follows the redirect.
	file := `env { job.mode = "BATCH", parallelism = 2 }
source { FakeSource { plugin_output = "fake", row.num = 300, schema = { fields { id = bigint } } } }
sink { Console { plugin_input = "fake", log.print.data = false } }`
	res, err := http.Post("http://"+addrs[other]+"/submit-job?jobId=via-http&jobName=from-http", "text/plain", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), `"via-http"`) {
		t.Fatalf("submit-job through %s: %d %s", other, res.StatusCode, b)
	}
	eventually(t, 90*time.Second, "job via-http FINISHED", func() error {
		code, _, b := httpGet(t, http.DefaultClient, base+"/job-info/via-http")
		var j struct {
			JobStatus string
			JobName   string
			ErrorMsg  *string
			Metrics   struct{ SourceReceivedCount, SinkWriteCount int64 }
		}
		if err := json.Unmarshal(b, &j); err != nil || code != http.StatusOK {
			return fmt.Errorf("%d %s (%v)", code, b, err)
		}
		switch j.JobStatus {
		case "FINISHED":
			if j.JobName != "from-http" || j.Metrics.SourceReceivedCount != 600 || j.Metrics.SinkWriteCount != 600 {
				t.Fatalf("job-info: %s", b)
			}
			return nil
		case "FAILED", "CANCELED":
			t.Fatalf("job via-http ended %s: %s", j.JobStatus, b)
		}
		return fmt.Errorf("state %s", j.JobStatus)
	})
	code, _, b = httpGet(t, http.DefaultClient, base+"/job-checkpoints/via-http")
	if code != http.StatusOK || !strings.Contains(string(b), `"FINAL"`) {
		t.Fatalf("job-checkpoints from the JetStream store: %d %s", code, b)
	}

	code, _, b = httpGet(t, noFollow, base+"/metrics")
	if code != http.StatusOK || !strings.Contains(string(b), "stactor_node_leader 1\n") ||
		!strings.Contains(string(b), `stactor_job_rows_read_total{job_id="via-http",job_name="from-http"} 600`) ||
		!strings.Contains(string(b), "stactor_workers 3\n") {
		t.Fatalf("leader's /metrics: %d\n%s", code, grepLines(string(b), "stactor_"))
	}
	code, _, b = httpGet(t, noFollow, "http://"+addrs[other]+"/metrics")
	if code != http.StatusOK || !strings.Contains(string(b), "stactor_node_leader 0\n") || strings.Contains(string(b), "via-http") {
		t.Fatalf("a non-leader's /metrics: %d\n%s", code, grepLines(string(b), "stactor_"))
	}

	// The leader dies: the node that takes over serves the API, the other
	// redirects to it, and the job that ended under the old leader is
	// still found (in the job registry).
	before := c.leaderships()
	c.kill(leader)
	next := c.waitTakeover(before, time.Now())
	var rest string
	for _, id := range c.alive() {
		if id != next {
			rest = id
		}
	}
	eventually(t, 30*time.Second, "a redirect to the new leader", func() error {
		code, loc, b := httpGet(t, noFollow, "http://"+addrs[rest]+"/job-info/via-http")
		if code != http.StatusTemporaryRedirect || loc != "http://"+addrs[next]+"/job-info/via-http" {
			return fmt.Errorf("%d Location %q: %s", code, loc, b)
		}
		return nil
	})
	code, _, b = httpGet(t, http.DefaultClient, "http://"+addrs[rest]+"/job-info/via-http")
	var j struct {
		JobStatus string
		Metrics   *struct{ SourceReceivedCount int64 }
	}
	// Counts are there if the registry record keeps them.
	if err := json.Unmarshal(b, &j); err != nil || code != http.StatusOK || j.JobStatus != "FINISHED" ||
		j.Metrics != nil && j.Metrics.SourceReceivedCount != 600 {
		t.Fatalf("job-info after the takeover: %d %s", code, b)
	}
	eventually(t, 30*time.Second, "overview with the 2 workers left", func() error {
		code, _, b := httpGet(t, http.DefaultClient, "http://"+addrs[next]+"/overview")
		var o overview
		if err := json.Unmarshal(b, &o); err != nil || code != http.StatusOK {
			return fmt.Errorf("%d %s (%v)", code, b, err)
		}
		if o.Leader != next || o.Works != 2 || o.FinishedJobs != 1 {
			return fmt.Errorf("overview: %s", b)
		}
		return nil
	})
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A node started with --data-dir and no --node-id generates its id once
// and keeps it: killed and started again, it is the same member.
func TestNodeDataDirKeepsIdentity(t *testing.T) {
	c := newCluster(t)
	dir := filepath.Join(t.TempDir(), "data")
	// startNode passes --node-id; the later empty one wins.
	c.startNode("d", "--node-id=", "--data-dir", dir)
	id := c.waitDataDirMember(dir)
	c.kill("d")
	c.startNode("d", "--node-id=", "--data-dir", dir)
	if again := c.waitDataDirMember(dir); again != id {
		t.Fatalf("restarted as %s, was %s", again, id)
	}
}

// waitDataDirMember waits until the id in dir/node-id is the cluster's
// one member and it is healthy, and returns the id. (waitReady knows
// nodes by the ids the test gave them.)
func (c *testCluster) waitDataDirMember(dir string) string {
	c.t.Helper()
	var id string
	eventually(c.t, 30*time.Second, "the data dir's node healthy", func() error {
		b, err := os.ReadFile(filepath.Join(dir, "node-id"))
		if err != nil {
			return err
		}
		id = strings.TrimSpace(string(b))
		ms := c.consulMembers()
		if len(ms) != 1 || ms[0].ID != id || !ms[0].Healthy {
			return fmt.Errorf("members %+v, want only %s, healthy", ms, id)
		}
		return nil
	})
	return id
}
