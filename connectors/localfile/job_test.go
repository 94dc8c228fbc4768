package localfile

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
)

// seatunnelJob uses the LocalFile examples of SeaTunnel's documentation
// (source: schema and field_delimiter; sink: the text example with
// partitions), with only the paths changed.
const seatunnelJob = `
env {
  parallelism = 2
  job.mode = "BATCH"
}
source {
  LocalFile {
    path = "IN"
    file_format_type = "text"
    field_delimiter = "#"
    schema {
      fields {
        name = string
        age = int
        gender = string
      }
    }
    result_table_name = "people"
  }
}
sink {
  LocalFile {
    source_table_name = "people"
    path = "file://OUT"
    field_delimiter = "\t"
    row_delimiter = "\n"
    partition_by = ["age"]
    partition_dir_expression = "${k0}=${v0}"
    is_partition_field_write_in_file = true
    file_name_expression = "${transactionId}_${now}"
    file_format_type = "text"
    sink_columns = ["name", "age"]
    filename_time_format = "yyyy.MM.dd"
    is_enable_transaction = true
  }
}
`

// runJob plans a one-source one-sink job file and runs it as the engine
// would, with p readers and writers, committing checkpoint 1.
func runJob(t *testing.T, src string, p int) {
	t.Helper()
	job, err := config.Parse("job.conf", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	sp, kp := job.Sources[0], job.Sinks[0]
	sf, err := connectors.LookupSource(sp.Name)
	if err != nil {
		t.Fatal(err)
	}
	scfg, warnings, err := config.Validate(job.File, sp.Where(), sp.Name, sp.Pos, sp.Body, sf.Options, config.CommonPluginOptions)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("source options: %v %v", err, warnings)
	}
	jc := connectors.JobContext{JobID: "42", Mode: connectors.Batch, Parallelism: p}
	res, err := sf.Resolve(context.Background(), scfg, jc)
	if err != nil {
		t.Fatal(err)
	}
	src0, err := sf.Create(scfg, res, jc)
	if err != nil {
		t.Fatal(err)
	}
	kf, _ := connectors.LookupSink(kp.Name)
	kcfg, warnings, err := config.Validate(job.File, kp.Where(), kp.Name, kp.Pos, kp.Body, kf.Options, config.CommonPluginOptions)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("sink options: %v %v", err, warnings)
	}
	sink, err := kf.Create(kcfg, src0.Tables(), nil, jc)
	if err != nil {
		t.Fatal(err)
	}
	assigned := splitsFor(t, src0.(*source), p)
	var infos [][]byte
	for i := 0; i < p; i++ {
		rows, err := readSplits(t, src0.(*source), assigned[i], 100)
		if err != nil {
			t.Fatal(err)
		}
		w, err := sink.CreateWriter(context.Background(), connectors.TaskInfo{JobID: "42", SubtaskIndex: i, Parallelism: p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) > 0 {
			if err := w.Write(batchOf(t, src0.Tables()[0], rows...)); err != nil {
				t.Fatal(err)
			}
		}
		info, err := w.PrepareCommit(1)
		if err != nil {
			t.Fatal(err)
		}
		if info != nil {
			infos = append(infos, info)
		}
		w.Close()
	}
	c, _ := sink.(connectors.SinkWithCommitter).CreateCommitter()
	if err := c.Commit(context.Background(), connectors.CommitContext{JobID: "42", CheckpointID: 1, Final: true}, infos); err != nil {
		t.Fatal(err)
	}
}

func TestSeaTunnelDocExamples(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(in, "a.txt"), "tyrantlucifer#26#male\nann#30#female\n")
	writeFile(t, filepath.Join(in, "b.txt"), "bob#26#male\n")
	runJob(t, strings.NewReplacer("IN", in, "OUT", out).Replace(seatunnelJob), 2)
	got := files(t, out)
	if len(got) != 3 {
		t.Fatalf("files %v", got)
	}
	for _, f := range got {
		if !strings.HasPrefix(f, "age=26/T_42_0_") && !strings.HasPrefix(f, "age=30/T_42_0_") {
			t.Errorf("file %s", f)
		}
	}
	var all []string
	for _, f := range got {
		all = append(all, readFile(t, filepath.Join(out, f)))
	}
	joined := strings.Join(all, "")
	for _, line := range []string{"tyrantlucifer\t26\n", "ann\t30\n", "bob\t26\n"} {
		if !strings.Contains(joined, line) {
			t.Errorf("output %q lacks %q", joined, line)
		}
	}
	// Read it back.
	src := newTestSource(t, "path = "+q(out)+"\nfile_format_type = text\nfield_delimiter = \"\\t\"\nschema { fields { name = string, age = int } }")
	rows := readAll(t, src, 1)
	// The partition folder age=26 names a field the schema has already.
	if len(rows) != 3 || fmt.Sprint(src.cfg.schema.Names()) != "[name age]" {
		t.Fatalf("rows %v schema %s", rows, src.cfg.schema)
	}

	// The parquet example: no schema, the file's own.
	pq := t.TempDir()
	k := newTestSink(t, "path = "+q(pq)+"\nfile_format_type = parquet", people)
	writeAndCommit(t, k, task(0, 0), 1, peopleRows(t))
	src = newTestSource(t, "path = "+q(pq)+"\nfile_format_type = \"parquet\"")
	if got := src.cfg.schema.String(); got != "default.default.default(id bigint, name string, score double, price decimal(10, 2), born date, seen timestamp, tags array<string>)" {
		t.Fatalf("schema %s", got)
	}
	if rows := readAll(t, src, 1); len(rows) != 4 {
		t.Fatalf("rows %d", len(rows))
	}
}
