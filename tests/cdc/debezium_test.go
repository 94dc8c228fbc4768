package cdc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/internal/dbtest"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// format = COMPATIBLE_DEBEZIUM_JSON: Postgres-CDC emits one row (topic,
// key, value) per change, the value Debezium's envelope; LocalFile writes
// them as JSON lines, which are read back and compared with the envelopes
// Debezium's PostgreSQL connector writes for the same changes (snapshot
// "r", insert "c", update "u" with both images, delete "d").
func TestPostgresCDCDebeziumJSON(t *testing.T) {
	pg := servers.Postgres(t)
	ctx := testCtx(t)
	src := pgSide(pg)
	if err := src.exec(ctx, "DROP TABLE IF EXISTS dbz_src", "CREATE TABLE dbz_src (id bigint PRIMARY KEY, v text, price numeric(10,2))",
		"ALTER TABLE dbz_src REPLICA IDENTITY FULL", "INSERT INTO dbz_src VALUES (1, 'a', 1.50), (2, 'b', NULL)",
		"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'dbz_slot'"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	job := filepath.Join(dir, "job.conf")
	writeFile(t, job, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  checkpoint.interval = 300
}
source {
  Postgres-CDC {
    base-url = %q
    username = %q
    password = ""
    database-names = ["postgres"]
    table-names = ["postgres.public.dbz_src"]
    slot.name = "dbz_slot"
    format = compatible_debezium_json
    debezium = {
      key.converter.schemas.enable = false
      value.converter.schemas.enable = false
      database.server.name = "pgsrv"
    }
  }
}
sink {
  LocalFile {
    path = %q
    file_format_type = "json"
  }
}`, pg.JDBCURL("postgres"), dbtest.User, out))
	var log lockedBuffer
	cur := startRun(t, filepath.Join(dir, "home"), job, "dbz", false, &log)
	events := func() ([]map[string]any, error) {
		files, err := committedFiles(out)
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		var evs []map[string]any
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if line == "" {
					continue
				}
				var rec struct{ Topic, Key, Value string }
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					return nil, fmt.Errorf("%s: %q: %w", f, line, err)
				}
				var env map[string]any
				if err := json.Unmarshal([]byte(rec.Value), &env); err != nil {
					return nil, fmt.Errorf("value %q: %w", rec.Value, err)
				}
				env["_topic"], env["_key"] = rec.Topic, rec.Key
				evs = append(evs, env)
			}
		}
		return evs, nil
	}
	waitN(t, cur, &log, 2, events)
	if err := src.exec(ctx, "INSERT INTO dbz_src VALUES (3, 'c', 3.25)", "UPDATE dbz_src SET v = 'a2' WHERE id = 1", "DELETE FROM dbz_src WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	evs := waitN(t, cur, &log, 5, events)
	a := map[string]any{"id": 1.0, "v": "a", "price": "AJY="} // 150 at scale 2
	a2 := map[string]any{"id": 1.0, "v": "a2", "price": "AJY="}
	b := map[string]any{"id": 2.0, "v": "b", "price": nil}
	c := map[string]any{"id": 3.0, "v": "c", "price": "AUU="} // 325
	want := []struct {
		op, key       string
		before, after any
		snapshot      string
	}{
		{"r", `{"id":1}`, nil, a, "true"}, {"r", `{"id":2}`, nil, b, "true"},
		{"c", `{"id":3}`, nil, c, "false"}, {"u", `{"id":1}`, a, a2, "false"}, {"d", `{"id":2}`, b, nil, "false"},
	}
	// The snapshot's two rows may come in either order.
	if evs[0]["_key"] == `{"id":2}` {
		evs[0], evs[1] = evs[1], evs[0]
	}
	for i, w := range want {
		e := evs[i]
		src, _ := e["source"].(map[string]any)
		if e["_topic"] != "pgsrv.public.dbz_src" || e["_key"] != w.key || e["op"] != w.op ||
			!reflect.DeepEqual(e["before"], w.before) || !reflect.DeepEqual(e["after"], w.after) ||
			src["connector"] != "postgresql" || src["db"] != "postgres" || src["schema"] != "public" || src["table"] != "dbz_src" || src["snapshot"] != w.snapshot {
			t.Errorf("event %d: %v, want op %s key %s before %v after %v", i, e, w.op, w.key, w.before, w.after)
		}
	}
	if len(evs) != len(want) {
		t.Errorf("%d events, want %d", len(evs), len(want))
	}
}

// MySQL-CDC with format = COMPATIBLE_DEBEZIUM_JSON into Kafka's
// compatible_debezium_json, both exactly-once, the binary SIGKILLed and
// restored between changes: every change is one record of the table's
// Debezium topic, exactly once, in order, as Debezium's envelope.
func TestMySQLCDCDebeziumJSONToKafka(t *testing.T) {
	my := servers.MariaDB(t)
	ctx := testCtx(t)
	src := mySide(my, "dbz_src")
	if err := my.Exec(ctx, "", "CREATE DATABASE IF NOT EXISTS dbz_src"); err != nil {
		t.Fatal(err)
	}
	if err := src.exec(ctx, "DROP TABLE IF EXISTS t", "CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR(20))", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"); err != nil {
		t.Fatal(err)
	}
	topic := "mysql_binlog_source.dbz_src.t"
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	dir := t.TempDir()
	job := filepath.Join(dir, "job.conf")
	writeFile(t, job, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  checkpoint.interval = 300
  job.retry.times = 0
}
source {
  MySQL-CDC {
    base-url = %q
    username = %q
    password = ""
    table-names = ["dbz_src.t"]
    server-id = "5600"
    exactly_once = true
    heartbeat.interval.ms = 500
    format = COMPATIBLE_DEBEZIUM_JSON
    debezium {
      key.converter.schemas.enable = false
      value.converter.schemas.enable = false
    }
  }
}
sink {
  Kafka {
    bootstrap.servers = %q
    topic = "ignored"
    format = compatible_debezium_json
    semantics = EXACTLY_ONCE
  }
}`, my.JDBCURL(""), dbtest.User, cluster.ListenAddrs()[0]))
	records := func() ([]string, error) {
		cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.ConsumeTopics(topic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		var out []string
		for {
			fs := cl.PollFetches(pctx)
			if pctx.Err() != nil {
				return out, nil
			}
			fs.EachRecord(func(r *kgo.Record) {
				var env struct {
					Before, After map[string]any
					Op            string
				}
				if err := json.Unmarshal(r.Value, &env); err != nil {
					out = append(out, "bad:"+string(r.Value))
					return
				}
				out = append(out, fmt.Sprintf("%s %s %v %v", string(r.Key), env.Op, env.Before, env.After))
			})
		}
	}
	want := []string{
		`{"id":1} r map[] map[id:1 v:a]`, `{"id":2} r map[] map[id:2 v:b]`,
		`{"id":3} c map[] map[id:3 v:c]`, `{"id":1} u map[id:1 v:a] map[id:1 v:a2]`,
		`{"id":2} d map[id:2 v:b] map[]`, `{"id":4} c map[] map[id:4 v:d]`, `{"id":3} u map[id:3 v:c] map[id:3 v:c2]`,
	}
	var log lockedBuffer
	home := filepath.Join(dir, "home")
	cur := startRun(t, home, job, "dbz-kafka", false, &log)
	waitN(t, cur, &log, 2, records)
	if err := src.exec(ctx, "INSERT INTO t VALUES (3, 'c')", "UPDATE t SET v = 'a2' WHERE id = 1", "DELETE FROM t WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	waitN(t, cur, &log, 5, records)
	cur.kill()
	if err := src.exec(ctx, "INSERT INTO t VALUES (4, 'd')"); err != nil {
		t.Fatal(err)
	}
	cur = startRun(t, home, job, "dbz-kafka", true, &log)
	waitN(t, cur, &log, 6, records)
	cur.kill() // right after, maybe before its next checkpoint
	if err := src.exec(ctx, "UPDATE t SET v = 'c2' WHERE id = 3"); err != nil {
		t.Fatal(err)
	}
	cur = startRun(t, home, job, "dbz-kafka", true, &log)
	got := waitN(t, cur, &log, 7, records)
	time.Sleep(time.Second) // a duplicate would come now
	if got, _ = records(); len(got) > 0 && got[1] == want[0] {
		got[0], got[1] = got[1], got[0] // the snapshot's rows in either order
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("records:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), tail(log.String()))
	}
}

// waitN waits until read gives at least n items while cur runs.
func waitN[T any](t *testing.T, cur *run, log *lockedBuffer, n int, read func() ([]T, error)) []T {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := read()
		if err == nil && len(got) >= n {
			return got
		}
		select {
		case <-cur.exited:
			t.Fatalf("the run ended (%v)\n%s", cur.err, tail(log.String()))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d items (%v), want %d: %v\n%s", len(got), err, n, got, tail(log.String()))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
