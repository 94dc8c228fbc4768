package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRunHTTP: stactor run --http serves the API, /metrics and the page for
// the local job: /running-job, /update-tags on the local worker, and
// /stop-job with a savepoint ends the run as Ctrl-C would.
func TestRunHTTP(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `env { job.mode = "STREAMING", read_limit.rows_per_second = 50 }
source { FakeSource { row.num = 1000000, schema = { fields { id = bigint } } } }
sink { Console { log.print.data = false } }
`)
	cmd := stactor(t, dir, "run", "--job-id", "web-1", "--http", "127.0.0.1:0", job)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		at := regexp.MustCompile(`HTTP API and web page at (http://\S+)/`)
		for sc.Scan() {
			if m := at.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	var base string
	select {
	case base = <-urls:
	case <-time.After(30 * time.Second):
		t.Fatal("stactor run --http printed no address")
	}
	get := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	post := func(path, body string) (int, string) {
		t.Helper()
		res, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, b := get("/running-job/web-1")
		if code == http.StatusOK && strings.Contains(b, `"jobStatus": "RUNNING"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("running-job/web-1: %d %s", code, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, b := get("/metrics"); code != http.StatusOK || !strings.Contains(b, `stactor_job_rows_read_total{job_id="web-1"`) {
		t.Fatalf("/metrics: %d\n%s", code, b)
	}
	if code, b := get("/"); code != http.StatusOK || !strings.Contains(b, "<html") {
		t.Fatalf("the page: %d", code)
	}
	if code, b := get("/system-monitoring-information"); code != http.StatusOK || !strings.Contains(b, `"processors"`) {
		t.Fatalf("system-monitoring-information: %d %s", code, b)
	}
	if code, b := post("/update-tags", `{"zone": "b"}`); code != http.StatusOK || !strings.Contains(b, "update node tags done.") {
		t.Fatalf("update-tags: %d %s", code, b)
	}
	for {
		_, b := get("/overview?zone=b")
		var o struct{ Works int }
		if json.Unmarshal([]byte(b), &o) == nil && o.Works == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("overview?zone=b after update-tags: %s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, b := post("/update-tags", ``); code != http.StatusBadRequest || !strings.Contains(b, "Request body is empty.") {
		t.Fatalf("update-tags without a body: %d %s", code, b)
	}
	if code, b := post("/stop-job", `{"jobId": "web-1", "isStopWithSavePoint": true}`); code != http.StatusOK {
		t.Fatalf("stop-job: %d %s", code, b)
	}
	select {
	case err := <-exited:
		exited <- err
		if cmd.ProcessState.ExitCode() != 130 {
			t.Fatalf("run ended with %v, want exit 130 (SAVEPOINT_DONE)", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end after stop-job")
	}
}

// TestRunHTTPBeyondLoopback: without credentials the API stays on loopback.
func TestRunHTTPBeyondLoopback(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, `source { FakeSource { schema = { fields { id = bigint } } } }
sink { Console {} }
`)
	r := run(t, dir, "run", "--http", "0.0.0.0:0", job)
	if r.code != 2 || !strings.Contains(r.stderr, "listens beyond loopback") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}
