package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stactor/stactor/internal/dbtest"
	"github.com/stactor/stactor/tests/internal/output"
)

// Sink kinds: both exactly-once, both read back row by row.
const (
	sinkLocalFile = "LocalFile"
	sinkJdbc      = "Jdbc"
)

// job is one job of the run: ids 0..rows-1 from CSV files (LocalFile
// source, parallelism 2) into an exactly-once sink of parallelism 3, so
// the edge between them redistributes rows — over NATS where the subtasks
// are on different nodes.
type job struct {
	id, sink string
	rows     int
	file     string
	out      string // LocalFile: the output directory (on the tmpfs)
	table    string // Jdbc: the PostgreSQL table

	submitted time.Time
	complete  bool   // every row seen committed
	state     string // at the end
	cause     string
	lost, dup int
}

// jobSettings are what every job's env shares: checkpoints often (so
// commits, and the progress the harness waits for, are frequent), retries
// enough for the faults a job lives through, a read rate that makes a job
// last about half a minute.
const jobEnv = `  job.mode = "BATCH"
  checkpoint.interval = 500
  checkpoint.timeout = 20000
  job.retry.times = 200
  job.retry.interval.seconds = 1
  read_limit.rows_per_second = %d`

// newJob writes job id's input (four CSV files) and job file under dir.
func newJob(dir, id, sink string, rows, rate int, pg *dbtest.Postgres) (*job, error) {
	in := filepath.Join(dir, "in", id)
	if err := os.MkdirAll(in, 0o755); err != nil {
		return nil, err
	}
	for f := 0; f < 4; f++ {
		var b strings.Builder
		for i := f; i < rows; i += 4 {
			fmt.Fprintf(&b, "%d,name-%d\n", i, i)
		}
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("part-%d.csv", f)), []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
	}
	j := &job{id: id, sink: sink, rows: rows, file: filepath.Join(dir, id+".conf")}
	var sinkConf string
	switch sink {
	case sinkLocalFile:
		j.out = filepath.Join(dir, "out", id)
		sinkConf = fmt.Sprintf(`LocalFile {
    path = %q
    file_format_type = "csv"
    parallelism = 3
  }`, j.out)
	case sinkJdbc:
		j.table = strings.ReplaceAll(id, "-", "_")
		sinkConf = fmt.Sprintf(`Jdbc {
    url = "jdbc:postgresql://%s:%d/postgres"
    driver = "org.postgresql.Driver"
    user = %q
    database = postgres
    table = "public.%s"
    is_exactly_once = true
    xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"
    connection_check_timeout_sec = 5
    batch_size = 200
    parallelism = 3
  }`, serviceIP, pg.Port, dbtest.User, j.table)
	}
	conf := fmt.Sprintf(`env {
%s
}
source {
  LocalFile {
    path = %q
    file_format_type = "csv"
    schema = { fields { id = bigint, name = string } }
    parallelism = 2
  }
}
sink {
  %s
}
`, fmt.Sprintf(jobEnv, rate), in, sinkConf)
	return j, os.WriteFile(j.file, []byte(conf), 0o644)
}

// committed reads the job's committed output and returns how often each
// id is in it (ids outside 0..rows-1 are an error).
func (j *job) committed(pg *dbtest.Postgres) ([]int, error) {
	seen := make([]int, j.rows)
	add := func(where string, id int64) error {
		if id < 0 || id >= int64(j.rows) {
			return fmt.Errorf("%s: unexpected id %d", where, id)
		}
		seen[id]++
		return nil
	}
	switch j.sink {
	case sinkLocalFile:
		return seen, output.Each(j.out, add)
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
		if err != nil {
			return nil, err
		}
		defer conn.Close(context.Background())
		rows, err := conn.Query(ctx, "SELECT id FROM public."+j.table)
		if err != nil {
			if strings.Contains(err.Error(), "does not exist") {
				return seen, nil // the sink has not made it yet
			}
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			if err := add(j.table, id); err != nil {
				return nil, err
			}
		}
		return seen, rows.Err()
	}
}

// count is the number of rows committed.
func (j *job) count(pg *dbtest.Postgres) (int, error) {
	seen, err := j.committed(pg)
	n := 0
	for _, c := range seen {
		n += c
	}
	return n, err
}

// check counts the ids lost (none committed) and duplicated (more than
// once) in seen.
func check(seen []int) (lost, dup int) {
	for _, c := range seen {
		switch {
		case c == 0:
			lost++
		case c > 1:
			dup++
		}
	}
	return lost, dup
}
