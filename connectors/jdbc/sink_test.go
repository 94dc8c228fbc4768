package jdbc

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/row"
)

func TestSinkAppliesRowKinds(t *testing.T) {
	for _, tg := range targets(t) {
		for _, copyMode := range []bool{false, true} {
			if copyMode && tg.dialect != dialectPostgres {
				continue
			}
			t.Run(fmt.Sprintf("%s/copy=%v", tg.name, copyMode), func(t *testing.T) {
				tbl := fmt.Sprintf("people_kinds_%v", copyMode)
				tg.exec(t, "DROP TABLE IF EXISTS "+tbl)
				body := fmt.Sprintf("generate_sink_sql = true\ndatabase = %q\ntable = %q\nbatch_size = 2\n", tg.db, tg.tablePathOf(tbl))
				if copyMode {
					body += "use_copy_statement = true\nenable_upsert = false\n"
				}
				_, w := openSink(t, tg, body, testSchema)
				ins := make([]row.Kind, 5)
				if err := w.Write(batchOf(t, testSchema, ins, person(1, "a"), person(2, "b"), person(3, "c"), person(4, "d"), person(5, "e"))); err != nil {
					t.Fatal(err)
				}
				second := []row.Kind{row.UpdateBefore, row.UpdateAfter, row.Delete, row.Insert}
				rows := [][]any{person(2, "b"), person(2, "b2"), person(3, "c"), person(6, "f")}
				if !copyMode {
					second = append(second, row.Insert) // an upsert of a key already there
					rows = append(rows, person(1, "a2"))
				}
				if err := w.Write(batchOf(t, testSchema, second, rows...)); err != nil {
					t.Fatal(err)
				}
				info, err := w.PrepareCommit(1)
				if err != nil || info != nil {
					t.Fatalf("prepare: %v %s", err, info)
				}
				got := tg.dump(t, tbl, "id")
				want := []string{
					"1|a2|1.25|2024-01-02T10:00:00.123456|false",
					"2|b2|2.50|2024-01-03T10:00:00.123456|true",
					"4|d|5.00|2024-01-05T10:00:00.123456|true",
					"5|e|6.25|2024-01-06T10:00:00.123456|false",
					"6|f|7.50|2024-01-07T10:00:00.123456|true",
				}
				if copyMode {
					want[0] = "1|a|1.25|2024-01-02T10:00:00.123456|false"
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("target:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
}

func TestSinkConstraintViolationNamesTableAndKey(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tg.exec(t, "DROP TABLE IF EXISTS people_dup")
			r := savedSink(t, tg, fmt.Sprintf("database = %q\ntable = %q\nenable_upsert = false\n", tg.db, tg.tablePathOf("people_dup")), testSchema)
			w, _ := newWriter(testCtx(t), r, testTask)
			defer w.Close()
			w.Write(batchOf(t, testSchema, make([]row.Kind, 2), person(7, "x"), person(7, "y")))
			_, err := w.PrepareCommit(1)
			if err == nil || !strings.Contains(err.Error(), "people_dup") || !strings.Contains(err.Error(), "7") {
				t.Fatalf("duplicate key: %v", err)
			}
		})
	}
}

func TestSinkSaveModes(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tg.exec(t, "DROP TABLE IF EXISTS people_save")
			path := fmt.Sprintf("database = %q\ntable = %q\n", tg.db, tg.tablePathOf("people_save"))
			mode := func(schema, data string) error {
				r := mustSink(t, tg, path+fmt.Sprintf("schema_save_mode = %s\ndata_save_mode = %s\ncustom_sql = \"DELETE FROM people_save WHERE id = 1\"\n", schema, data), testSchema)
				return (&sink{r: r}).HandleSaveMode(testCtx(t))
			}
			if err := mode("ERROR_WHEN_SCHEMA_NOT_EXIST", "APPEND_DATA"); err == nil || !strings.Contains(err.Error(), "people_save does not exist") {
				t.Errorf("missing table: %v", err)
			}
			if err := mode("CREATE_SCHEMA_WHEN_NOT_EXIST", "ERROR_WHEN_DATA_EXISTS"); err != nil {
				t.Fatal(err)
			}
			tg.exec(t, "INSERT INTO people_save (id, name) VALUES (1, 'x')", "INSERT INTO people_save (id, name) VALUES (2, 'y')")
			if err := mode("IGNORE", "ERROR_WHEN_DATA_EXISTS"); err == nil || !strings.Contains(err.Error(), "already holds data") {
				t.Errorf("data exists: %v", err)
			}
			if err := mode("IGNORE", "CUSTOM_PROCESSING"); err != nil {
				t.Fatal(err)
			}
			if got := len(tg.dump(t, "people_save", "id")); got != 1 {
				t.Errorf("after custom_sql: %d rows", got)
			}
			if err := mode("CREATE_SCHEMA_WHEN_NOT_EXIST", "DROP_DATA"); err != nil {
				t.Fatal(err)
			}
			if got := len(tg.dump(t, "people_save", "id")); got != 0 {
				t.Errorf("after DROP_DATA: %d rows", got)
			}
			tg.exec(t, "INSERT INTO people_save (id, name) VALUES (3, 'z')")
			if err := mode("RECREATE_SCHEMA", "APPEND_DATA"); err != nil {
				t.Fatal(err)
			}
			if got := len(tg.dump(t, "people_save", "id")); got != 0 {
				t.Errorf("after RECREATE_SCHEMA: %d rows", got)
			}
		})
	}
}

func TestSinkBadConnection(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			body := fmt.Sprintf("url = %q\ndriver = %q\nuser = %q\npassword = wrong-secret\ntable = x\n", tg.url(tg.db), tg.driver, dbtest.PasswordUser)
			cfg, err := pluginCfg(t, "sink Jdbc", sinkOptions, body)
			if err != nil {
				t.Fatal(err)
			}
			_, err = resolveSink(testCtx(t), cfg, []*row.Schema{testSchema})
			msg := fmt.Sprint(err)
			if err == nil || !strings.Contains(msg, "job.conf:1") || !strings.Contains(msg, dbtest.PasswordUser) || strings.Contains(msg, "wrong-secret") ||
				!(strings.Contains(msg, "password authentication failed") || strings.Contains(msg, "Access denied")) {
				t.Errorf("wrong password: %v", err)
			}
			cfg, _ = pluginCfg(t, "sink Jdbc", sinkOptions, fmt.Sprintf("url = \"jdbc:postgresql://127.0.0.1:1/x\"\ndriver = %q\ntable = x\nconnection_check_timeout_sec = 2\n", "org.postgresql.Driver"))
			if _, err := resolveSink(testCtx(t), cfg, []*row.Schema{testSchema}); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
				t.Errorf("dead server: %v", err)
			}
			cfg, _ = pluginCfg(t, "sink Jdbc", sinkOptions, fmt.Sprintf("url = %q\ndriver = \"com.mysql.cj.jdbc.Driver\"\ntable = x\n", "jdbc:postgresql://127.0.0.1:1/x"))
			if _, err := resolveSink(testCtx(t), cfg, []*row.Schema{testSchema}); err == nil || !strings.Contains(err.Error(), "driver") {
				t.Errorf("driver of another database: %v", err)
			}
		})
	}
}

func TestExactlyOnceCommitAfterCheckpoint(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tbl := "people_xa"
			tg.exec(t, "DROP TABLE IF EXISTS "+tbl)
			body := fmt.Sprintf("database = %q\ntable = %q\nis_exactly_once = true\nxa_data_source_class_name = %q\n", tg.db, tg.tablePathOf(tbl), tg.xa)
			r, w := openSink(t, tg, body, testSchema)
			w.Write(batchOf(t, testSchema, make([]row.Kind, 3), person(1, "a"), person(2, "b"), person(3, "c")))
			info, err := w.PrepareCommit(5)
			if err != nil || info == nil {
				t.Fatalf("prepare: %v %s", err, info)
			}
			if got := tg.dump(t, tbl, "id"); len(got) != 0 {
				t.Fatalf("visible before commit: %v", got)
			}
			c := &committer{r: r}
			cc := connectors.CommitContext{JobID: testTask.JobID, Pipeline: 1, Attempt: 1, CheckpointID: 5}
			if err := c.Commit(testCtx(t), cc, [][]byte{info}); err != nil {
				t.Fatal(err)
			}
			if got := tg.dump(t, tbl, "id"); len(got) != 3 {
				t.Fatalf("after commit: %v", got)
			}
			// A commit redone after a restore finds it committed.
			if err := c.Commit(testCtx(t), cc, [][]byte{info}); err != nil {
				t.Fatalf("commit again: %v", err)
			}

			// A transaction prepared and rolled back is not "committed".
			w.Write(batchOf(t, testSchema, make([]row.Kind, 1), person(4, "d")))
			info2, err := w.PrepareCommit(6)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Abort(testCtx(t), cc, [][]byte{info2}); err != nil {
				t.Fatal(err)
			}
			err = c.Commit(testCtx(t), cc, [][]byte{info2})
			if err == nil || !connectors.IsPermanent(err) || !strings.Contains(err.Error(), "n2") {
				t.Fatalf("commit of a rolled back transaction: %v", err)
			}

			// AbortStale rolls back an older attempt's prepared work only.
			w.Write(batchOf(t, testSchema, make([]row.Kind, 1), person(5, "e")))
			if _, err := w.PrepareCommit(7); err != nil {
				t.Fatal(err)
			}
			task2 := testTask
			task2.Attempt = 2
			w2, _ := newWriter(testCtx(t), r, task2)
			defer w2.Close()
			w2.Write(batchOf(t, testSchema, make([]row.Kind, 1), person(6, "f")))
			info4, err := w2.PrepareCommit(8)
			if err != nil {
				t.Fatal(err)
			}
			cc.Attempt = 2
			if err := c.AbortStale(testCtx(t), cc); err != nil {
				t.Fatal(err)
			}
			if n := prepared(t, tg, r, cc); n != 1 {
				t.Fatalf("%d prepared after AbortStale, want 1 (attempt 2's)", n)
			}
			if err := c.Commit(testCtx(t), cc, [][]byte{info4}); err != nil {
				t.Fatal(err)
			}
			got := tg.dump(t, tbl, "id")
			if len(got) != 4 || !strings.HasPrefix(got[3], "6|f") {
				t.Fatalf("final: %v", got)
			}
		})
	}
}

// prepared counts the sink's prepared transactions of cc's pipeline.
func prepared(t testing.TB, tg target, r *sinkResolved, cc connectors.CommitContext) int {
	t.Helper()
	c := &committer{r: r}
	n := 0
	err := c.withSession(testCtx(t), func(pg pgConnT, my myConnT) error {
		xids, err := listPrepared(testCtx(t), pg, my, xidPrefix(cc.JobID, r.ID, cc.Pipeline))
		n = len(xids)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestExactlyOnceNeedsPreparedTransactions(t *testing.T) {
	servers.Postgres(t)
	pg, err := dbtest.StartPostgres(servers.Dir(), dbtest.WithMaxPreparedTransactions(0))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	tg := target{name: "pg0", dialect: dialectPostgres, url: pg.JDBCURL, driver: "org.postgresql.Driver", db: "postgres"}
	_, err = resolvedSink(t, tg, "table = x\nis_exactly_once = true\nxa_data_source_class_name = \"org.postgresql.xa.PGXADataSource\"\n", testSchema)
	if err == nil || !strings.Contains(err.Error(), "max_prepared_transactions = 0") {
		t.Fatalf("got %v", err)
	}
	_, err = resolvedSink(t, tg, "table = x\nis_exactly_once = true\n", testSchema)
	if err == nil || !strings.Contains(err.Error(), "xa_data_source_class_name") {
		t.Fatalf("got %v", err)
	}
}

func TestSinkCustomQueryExactlyOnce(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tg.exec(t, "DROP TABLE IF EXISTS people_q", "CREATE TABLE people_q (id bigint PRIMARY KEY, name varchar(20), score decimal(10,2), at timestamp NULL, ok boolean)")
			body := fmt.Sprintf("query = \"\"\"insert into people_q (id, name, score, at, ok)\n values (?, ?, ?, ?, ?);\"\"\"\nis_exactly_once = true\nxa_data_source_class_name = %q\n", tg.xa)
			r := savedSink(t, tg, body, testSchema)
			w, _ := newWriter(testCtx(t), r, testTask)
			defer w.Close()
			w.Write(batchOf(t, testSchema, make([]row.Kind, 2), person(1, "it's"), person(2, "?")))
			info, err := w.PrepareCommit(1)
			if err != nil {
				t.Fatal(err)
			}
			if err := (&committer{r: r}).Commit(testCtx(t), connectors.CommitContext{JobID: "job-1", Pipeline: 1, Attempt: 1, CheckpointID: 1}, [][]byte{info}); err != nil {
				t.Fatal(err)
			}
			got := tg.dump(t, "people_q", "id")
			want := "1|it's|1.25|2024-01-02T10:00:00.123456|false\n2|?|2.50|2024-01-03T10:00:00.123456|true"
			if tg.dialect == dialectMySQL {
				want = strings.ReplaceAll(want, ":00.123456", "") // timestamp(0)
			}
			if strings.Join(got, "\n") != want {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
			}
		})
	}
}

func TestSinkMultiTableNames(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			a := testSchema.WithTableID("src.alpha")
			b := testSchema.WithTableID("src.beta")
			tg.exec(t, "DROP TABLE IF EXISTS out_alpha", "DROP TABLE IF EXISTS out_beta")
			r := savedSink(t, tg, fmt.Sprintf("database = %q\ntable = %q\n", tg.db, tg.tablePathOf("out_${table_name}")), a, b)
			w, _ := newWriter(testCtx(t), r, testTask)
			defer w.Close()
			w.Write(batchOf(t, a, make([]row.Kind, 1), person(1, "a")))
			w.Write(batchOf(t, b, make([]row.Kind, 2), person(2, "b"), person(3, "c")))
			if _, err := w.PrepareCommit(1); err != nil {
				t.Fatal(err)
			}
			if n, m := len(tg.dump(t, "out_alpha", "id")), len(tg.dump(t, "out_beta", "id")); n != 1 || m != 2 {
				t.Errorf("out_alpha %d rows, out_beta %d", n, m)
			}
		})
	}
}

// A commit that cannot reach the server is tried again (max_commit_attempts)
// and succeeds once the server is back; the prepared transaction survived
// the server's crash.
func TestCommitRetriedWhileServerRestarts(t *testing.T) {
	pgSrv := servers.Postgres(t)
	tg := targets(t)[0]
	tg.exec(t, "DROP TABLE IF EXISTS people_retry")
	body := fmt.Sprintf("database = %q\ntable = %q\nis_exactly_once = true\nxa_data_source_class_name = %q\nmax_commit_attempts = 20\nconnection_check_timeout_sec = 2\n", tg.db, tg.tablePathOf("people_retry"), tg.xa)
	r := savedSink(t, tg, body, testSchema)
	w, _ := newWriter(testCtx(t), r, testTask)
	defer w.Close()
	w.Write(batchOf(t, testSchema, make([]row.Kind, 2), person(1, "a"), person(2, "b")))
	info, err := w.PrepareCommit(1)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := pgSrv.Kill(); err != nil {
		t.Fatal(err)
	}
	restarted := make(chan error, 1)
	go func() {
		time.Sleep(700 * time.Millisecond)
		restarted <- pgSrv.Restart()
	}()
	err = (&committer{r: r}).Commit(testCtx(t), connectors.CommitContext{JobID: "job-1", Pipeline: 1, Attempt: 1, CheckpointID: 1}, [][]byte{info})
	if rerr := <-restarted; rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatalf("commit across a server restart: %v", err)
	}
	if got := tg.dump(t, "people_retry", "id"); len(got) != 2 {
		t.Fatalf("after commit: %v", got)
	}
}

// The resolved form never holds the password: Create reads it from the
// checked options again.
func TestResolvedFormHasNoPassword(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			body := fmt.Sprintf("url = %q\ndriver = %q\nuser = %q\npassword = %q\ndatabase = %q\ntable = %q\n", tg.url(tg.db), tg.driver, dbtest.PasswordUser, dbtest.Password, tg.db, tg.tablePathOf("people_pw"))
			cfg, err := pluginCfg(t, "sink Jdbc", sinkOptions, body)
			if err != nil {
				t.Fatal(err)
			}
			b, err := SinkFactory.Resolve(testCtx(t), cfg, []*row.Schema{testSchema}, connectors.JobContext{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), dbtest.Password) {
				t.Fatalf("resolved form holds the password: %s", b)
			}
			s, err := SinkFactory.Create(cfg, []*row.Schema{testSchema}, b, connectors.JobContext{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.(*sink).HandleSaveMode(testCtx(t)); err != nil {
				t.Fatalf("with the password from the options: %v", err)
			}
		})
	}
}

// An abort right after the prepare, while the session that prepared the
// XA transaction may still be ending (MySQL: until then another session's
// XA ROLLBACK answers XAER_NOTA, "unknown"), still rolls it back: nothing
// stays prepared, and a commit after it fails.
func TestAbortRightAfterPrepare(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tbl := "people_abort"
			tg.exec(t, "DROP TABLE IF EXISTS "+tbl)
			body := fmt.Sprintf("database = %q\ntable = %q\nis_exactly_once = true\nxa_data_source_class_name = %q\n", tg.db, tg.tablePathOf(tbl), tg.xa)
			r := savedSink(t, tg, body, testSchema)
			c := &committer{r: r}
			for i := 0; i < 30; i++ {
				task := testTask
				task.JobID = fmt.Sprintf("abort-%d-%d", time.Now().UnixNano(), i)
				w, err := newWriter(testCtx(t), r, task)
				if err != nil {
					t.Fatal(err)
				}
				w.Write(batchOf(t, testSchema, make([]row.Kind, 1), person(int64(i), "a")))
				raw, err := w.PrepareCommit(1)
				if err != nil {
					t.Fatal(err)
				}
				w.Close()
				cc := connectors.CommitContext{JobID: task.JobID, Pipeline: 1, Attempt: 1, CheckpointID: 1}
				if err := c.Abort(testCtx(t), cc, [][]byte{raw}); err != nil {
					t.Fatal(err)
				}
				info, _ := decodeCommitInfo(raw)
				var left []string
				c.withSession(testCtx(t), func(pg *pgx.Conn, my *sql.Conn) error {
					left, err = listPrepared(testCtx(t), pg, my, info.XID)
					return err
				})
				if err != nil || len(left) > 0 {
					t.Fatalf("round %d: after the abort %v is still prepared (%v)", i, left, err)
				}
			}
			if got := tg.dump(t, tbl, "id"); len(got) != 0 {
				t.Fatalf("rows of aborted transactions: %v", got)
			}
		})
	}
}

// A writer that wrote nothing for idleCheckpoints checkpoints closes its
// session, and opens a new one for the next rows.
func TestIdleWriterReleasesItsSession(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tbl := "people_idle"
			tg.exec(t, "DROP TABLE IF EXISTS "+tbl)
			body := fmt.Sprintf("generate_sink_sql = true\ndatabase = %q\ntable = %q\nprimary_keys = [\"id\"]\n", tg.db, tg.tablePathOf(tbl))
			_, w := openSink(t, tg, body, testSchema)
			connected := func() bool { return w.pg != nil || w.my != nil }
			w.Write(batchOf(t, testSchema, make([]row.Kind, 1), person(1, "a")))
			for i := 1; i <= idleCheckpoints+1; i++ {
				if _, err := w.PrepareCommit(int64(i)); err != nil {
					t.Fatal(err)
				}
				if want := i <= idleCheckpoints; connected() != want {
					t.Fatalf("after checkpoint %d (%d idle): connected %v", i, i-1, connected())
				}
			}
			w.Write(batchOf(t, testSchema, make([]row.Kind, 1), person(2, "b")))
			if _, err := w.PrepareCommit(10); err != nil {
				t.Fatal(err)
			}
			if got := tg.dump(t, tbl, "id"); len(got) != 2 || !connected() {
				t.Fatalf("after new rows: %v, connected %v", got, connected())
			}
		})
	}
}

// TestSinkTargetNames: SeaTunnel's catalog options tablePrefix,
// tableSuffix and schema (PostgreSQL) name the target, as in its
// Postgres-CDC e2e files (schema = "inventory", tablePrefix = "sink_",
// no table).
func TestSinkTargetNames(t *testing.T) {
	pgIn := row.MustSchema("postgres.inventory.orders", row.Field{Name: "id", Type: row.BigInt})
	for _, tg := range targets(t) {
		in := testSchema
		cases := []struct{ body, want string }{
			{"", tg.db + ".people"},
			{"tablePrefix = \"sink_\"\nschema = \"ignored\"\n", tg.db + ".sink_people"},
			{"tablePrefix = \"sink_\"\ntableSuffix = \"_v2\"\ntable = \"t_${table_name}\"\n", tg.db + ".sink_t_people_v2"},
		}
		if tg.dialect == dialectPostgres {
			in = pgIn
			cases = []struct{ body, want string }{
				{"", "postgres.public.orders"},
				{"schema = \"inventory\"\ntablePrefix = \"sink_\"\n", "postgres.inventory.sink_orders"},
				{"schema = \"other\"\ntable = \"inventory.x_${table_name}\"\n", "postgres.other.x_orders"},
				{"tableSuffix = \"_copy\"\ntable = \"${schema_name}.${table_name}\"\n", "postgres.inventory.orders_copy"},
			}
		}
		for _, c := range cases {
			t.Run(tg.name+"/"+strings.ReplaceAll(c.body, "\n", " "), func(t *testing.T) {
				cfg, err := pluginCfg(t, "sink Jdbc", sinkOptions, tg.connBody()+"generate_sink_sql = true\nschema_save_mode = IGNORE\n"+c.body)
				if err != nil {
					t.Fatal(err)
				}
				conn, err := connFrom(cfg)
				if err != nil {
					t.Fatal(err)
				}
				st, err := sinkTableOf(cfg, &conn, in, "ORIGINAL")
				if err != nil {
					t.Fatal(err)
				}
				if got := st.Target.String(); got != c.want {
					t.Errorf("target %s, want %s", got, c.want)
				}
			})
		}
	}
}

// A write that times out waiting for a row lock held by a prepared XA
// transaction says so, naming the transaction (what holds a lock past
// every session is a prepared transaction nobody commits or rolls back).
func TestLockWaitNamesPreparedTransactions(t *testing.T) {
	for _, tg := range targets(t) {
		if tg.dialect != dialectMySQL {
			continue
		}
		t.Run(tg.name, func(t *testing.T) {
			tbl := "people_lockwait"
			tg.exec(t, "DROP TABLE IF EXISTS "+tbl)
			body := fmt.Sprintf("database = %q\ntable = %q\nis_exactly_once = true\nxa_data_source_class_name = %q\n", tg.db, tg.tablePathOf(tbl), tg.xa)
			r := savedSink(t, tg, body, testSchema)
			task := testTask
			task.JobID = fmt.Sprintf("lockwait-%d", time.Now().UnixNano())
			w, err := newWriter(testCtx(t), r, task)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(batchOf(t, testSchema, make([]row.Kind, 1), person(7, "held")))
			raw, err := w.PrepareCommit(1)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			info, _ := decodeCommitInfo(raw)
			c := &committer{r: r}
			defer c.Abort(ctxBG(), connectors.CommitContext{JobID: task.JobID, Pipeline: 1, Attempt: 1, CheckpointID: 1}, [][]byte{raw})

			conn, err := myDB(t, tg.db).Conn(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(testCtx(t), "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
				t.Fatal(err)
			}
			_, werr := conn.ExecContext(testCtx(t), "INSERT INTO "+tbl+" (id, name) VALUES (7, 'blocked')")
			if werr == nil {
				t.Fatal("the insert of a locked row did not wait")
			}
			got := lockWaitDetail(testCtx(t), &r.Conn, werr).Error()
			if !strings.Contains(got, "Lock wait timeout") || !strings.Contains(got, info.XID) || !strings.Contains(got, "prepared XA") {
				t.Fatalf("the lock wait's error does not name the prepared transaction %s: %s", info.XID, got)
			}
			other := errors.New("some other error")
			if lockWaitDetail(testCtx(t), &r.Conn, other) != other {
				t.Fatal("another error was changed")
			}
		})
	}
}

// A round the server rolls back to break a deadlock is tried again, with
// max_retries at its default of 0: writers of one table in parallel
// (subtasks, multi_table_sink_replica) can deadlock on index locks. The
// other party here is a session that updates many rows (so that InnoDB
// picks the writer's lighter transaction as the victim) and waits second
// (so that PostgreSQL's deadlock check, run by the first waiter, aborts
// the writer).
func TestSinkRetriesARoundAbortedForADeadlock(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tbl := "people_deadlock"
			tg.exec(t, "DROP TABLE IF EXISTS "+tbl)
			body := fmt.Sprintf("generate_sink_sql = true\ndatabase = %q\ntable = %q\nbatch_size = 100\n", tg.db, tg.tablePathOf(tbl))
			_, w := openSink(t, tg, body, testSchema)
			var first [][]any
			for id := int64(1); id <= 50; id++ {
				first = append(first, person(id, "a"))
			}
			if err := w.Write(batchOf(t, testSchema, make([]row.Kind, len(first)), first...)); err != nil {
				t.Fatal(err)
			}
			if _, err := w.PrepareCommit(1); err != nil {
				t.Fatal(err)
			}

			ctx := testCtx(t)
			var other func(q string) error
			var waiting string
			if tg.dialect == dialectPostgres {
				c := pgConn(t, tg.db)
				other = func(q string) error { _, err := c.Exec(ctx, q); return err }
				waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
			} else {
				c, err := myDB(t, tg.db).Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				other = func(q string) error { _, err := c.ExecContext(ctx, q); return err }
				waiting = "SELECT count(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'"
			}
			for _, q := range []string{"BEGIN", "UPDATE " + tbl + " SET name = 'x' WHERE id >= 2"} {
				if err := other(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			done := make(chan error, 1)
			go func() {
				b := batchOf(t, testSchema, make([]row.Kind, 2), person(1, "w1"), person(2, "w2"))
				if err := w.Write(b); err != nil {
					done <- err
					return
				}
				_, err := w.PrepareCommit(2)
				done <- err
			}()
			// The writer holds row 1 and waits for row 2.
			deadline := time.Now().Add(10 * time.Second)
			for n := 0; n == 0; {
				if time.Now().After(deadline) {
					t.Fatal("the writer never waited for the other session's lock")
				}
				time.Sleep(20 * time.Millisecond)
				var err error
				if tg.dialect == dialectPostgres {
					err = pgConn(t, tg.db).QueryRow(ctx, waiting).Scan(&n)
				} else {
					err = myDB(t, tg.db).QueryRowContext(ctx, waiting).Scan(&n)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := other("UPDATE " + tbl + " SET name = 'x1' WHERE id = 1"); err != nil {
				t.Fatalf("the other session's update: %v (the server should have aborted the writer's round)", err)
			}
			if err := other("COMMIT"); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("the writer's round: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the writer's round did not end")
			}
			if w.deadlocks == 0 {
				t.Fatal("no round was tried again after a deadlock: the test made none")
			}
			got := tg.dump(t, tbl, "id")
			if len(got) != 50 || !strings.HasPrefix(got[0], "1|w1|") || !strings.HasPrefix(got[1], "2|w2|") || !strings.HasPrefix(got[2], "3|x|") {
				t.Fatalf("target after the retried round: %v…", got[:min(3, len(got))])
			}
		})
	}
}
