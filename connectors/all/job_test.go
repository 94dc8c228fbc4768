package all

import (
	"context"
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// complexJob is the "Complex" example of SeaTunnel's Assert documentation,
// unchanged but for a failing twin of one rule added at the end by the test.
const complexJob = `
env {
  parallelism = 1
  job.mode = "BATCH"
}
source {
  FakeSource {
    row.num = 1
    schema = {
      fields {
        c_null = "null"
        c_string = string
        c_boolean = boolean
        c_tinyint = tinyint
        c_smallint = smallint
        c_int = int
        c_bigint = bigint
        c_float = float
        c_double = double
        c_decimal = "decimal(30, 8)"
        c_date = date
        c_timestamp = timestamp
        c_time = time
        c_bytes = bytes
        c_array = "array<int>"
        c_map = "map<time, string>"
        c_map_nest = "map<string, {c_int = int, c_string = string}>"
        c_row = {
          c_null = "null"
          c_string = string
          c_boolean = boolean
          c_tinyint = tinyint
          c_smallint = smallint
          c_int = int
          c_bigint = bigint
          c_float = float
          c_double = double
          c_decimal = "decimal(30, 8)"
          c_date = date
          c_timestamp = timestamp
          c_time = time
          c_bytes = bytes
          c_array = "array<int>"
          c_map = "map<string, string>"
        }
      }
    }
    rows = [
      {
        kind = INSERT
        fields = [
          null, "AAA", false, 1, 1, 333, 323232, 3.1, 9.33333, 99999.99999999, "2012-12-21", "2012-12-21T12:34:56", "12:34:56",
          "bWlJWmo=",
          [0, 1, 2],
          "{ 12:01:26 = v0 }",
          { k1 = [123, "BBB-BB"]},
          [
            null, "AAA", false, 1, 1, 333, 323232, 3.1, 9.33333, 99999.99999999, "2012-12-21", "2012-12-21T12:34:56", "12:34:56",
            "bWlJWmo=",
            [0, 1, 2],
            { k0 = v0 }
          ]
        ]
      }
    ]
    result_table_name = "fake"
  }
}
sink {
  Assert {
    source_table_name = "fake"
    rules = {
      row_rules = [
        { rule_type = MAX_ROW, rule_value = 1 },
        { rule_type = MIN_ROW, rule_value = 1 }
      ],
      field_rules = [
        { field_name = c_null, field_type = "null", field_value = [{ rule_type = NULL }] },
        { field_name = c_string, field_type = string, field_value = [{ rule_type = NOT_NULL, equals_to = "AAA" }] },
        { field_name = c_boolean, field_type = boolean, field_value = [{ rule_type = NOT_NULL, equals_to = false }] },
        { field_name = c_tinyint, field_type = tinyint, field_value = [{ rule_type = NOT_NULL, equals_to = 1 }] },
        { field_name = c_smallint, field_type = smallint, field_value = [{ rule_type = NOT_NULL, equals_to = 1 }] },
        { field_name = c_int, field_type = int, field_value = [{ rule_type = NOT_NULL, equals_to = 333 }] },
        { field_name = c_bigint, field_type = bigint, field_value = [{ rule_type = NOT_NULL, equals_to = 323232 }] },
        { field_name = c_float, field_type = float, field_value = [{ rule_type = NOT_NULL, equals_to = 3.1 }] },
        { field_name = c_double, field_type = double, field_value = [{ rule_type = NOT_NULL, equals_to = 9.33333 }] },
        { field_name = c_decimal, field_type = "decimal(30, 8)", field_value = [{ rule_type = NOT_NULL, equals_to = 99999.99999999 }] },
        { field_name = c_date, field_type = date, field_value = [{ rule_type = NOT_NULL, equals_to = "2012-12-21" }] },
        { field_name = c_timestamp, field_type = timestamp, field_value = [{ rule_type = NOT_NULL, equals_to = "2012-12-21T12:34:56" }] },
        { field_name = c_time, field_type = time, field_value = [{ rule_type = NOT_NULL, equals_to = "12:34:56" }] },
        { field_name = c_bytes, field_type = bytes, field_value = [{ rule_type = NOT_NULL, equals_to = "bWlJWmo=" }] },
        { field_name = c_array, field_type = "array<int>", field_value = [{ rule_type = NOT_NULL, equals_to = [0, 1, 2] }] },
        { field_name = c_map, field_type = "map<time, string>", field_value = [{ rule_type = NOT_NULL, equals_to = "{ 12:01:26 = v0 }" }] },
        { field_name = c_map_nest, field_type = "map<string, {c_int = int, c_string = string}>", field_value = [{ rule_type = NOT_NULL, equals_to = { k1 = [123, "BBB-BB"] } }] },
        {
          field_name = c_row
          field_type = {
            c_null = "null", c_string = string, c_boolean = boolean, c_tinyint = tinyint, c_smallint = smallint,
            c_int = int, c_bigint = bigint, c_float = float, c_double = double, c_decimal = "decimal(30, 8)",
            c_date = date, c_timestamp = timestamp, c_time = time, c_bytes = bytes, c_array = "array<int>",
            c_map = "map<string, string>"
          }
          field_value = [{
            rule_type = NOT_NULL
            equals_to = [
              null, "AAA", false, 1, 1, 333, 323232, 3.1, 9.33333, 99999.99999999, "2012-12-21", "2012-12-21T12:34:56", "12:34:56",
              "bWlJWmo=",
              [0, 1, 2],
              { k0 = v0 }
            ]
          }]
        }
        EXTRA
      ]
    }
  }
}
`

type enumCtx struct{ assigned []connectors.Split }

func (c *enumCtx) Parallelism() int         { return 1 }
func (c *enumCtx) RegisteredReaders() []int { return []int{0} }
func (c *enumCtx) AssignSplits(subtask int, splits ...connectors.Split) {
	c.assigned = append(c.assigned, splits...)
}
func (c *enumCtx) SignalNoMoreSplits(subtask int) {}

type readerCtx struct{ ended bool }

func (c *readerCtx) Task() connectors.TaskInfo           { return connectors.TaskInfo{} }
func (c *readerCtx) Boundedness() connectors.Boundedness { return connectors.Bounded }
func (c *readerCtx) SendSplitRequest()                   {}
func (c *readerCtx) SignalNoMoreElement()                { c.ended = true }

type collector struct{ batches []*row.Batch }

func (c *collector) Emit(b *row.Batch) { c.batches = append(c.batches, b) }
func (c *collector) BatchSize() int    { return 1024 }

// runJob runs a one-source, one-sink job file through the connectors as
// the engine would in one subtask, and returns the sink's final verdict.
func runJob(t *testing.T, src string) error {
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
	scfg, _, err := config.Validate(job.File, sp.Where(), sp.Name, sp.Pos, sp.Body, sf.Options, config.CommonPluginOptions)
	if err != nil {
		t.Fatal(err)
	}
	jc := connectors.JobContext{Mode: connectors.JobMode(job.Mode), Parallelism: 1}
	source, err := sf.Create(scfg, nil, jc)
	if err != nil {
		t.Fatal(err)
	}
	kf, err := connectors.LookupSink(kp.Name)
	if err != nil {
		t.Fatal(err)
	}
	kcfg, _, err := config.Validate(job.File, kp.Where(), kp.Name, kp.Pos, kp.Body, kf.Options, config.CommonPluginOptions)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := kf.Create(kcfg, source.Tables(), nil, jc)
	if err != nil {
		return err
	}

	ec := &enumCtx{}
	en, _ := source.CreateEnumerator(ec, nil)
	en.Open(context.Background())
	en.Run()
	rc := &readerCtx{}
	rd, _ := source.CreateReader(rc)
	rd.Open(context.Background())
	rd.AddSplits(ec.assigned)
	rd.HandleNoMoreSplits()
	out := &collector{}
	for i := 0; i < 1000 && !rc.ended; i++ {
		if err := rd.PollNext(out); err != nil {
			t.Fatal(err)
		}
	}
	w, _ := sink.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	for _, b := range out.batches {
		if err := w.Write(b); err != nil {
			return err
		}
	}
	info, _ := w.PrepareCommit(1)
	c, _ := sink.(connectors.SinkWithAggregatedCommitter).CreateAggregatedCommitter()
	agg, _ := c.Combine([][]byte{info})
	return c.Commit(context.Background(), connectors.CommitContext{CheckpointID: 1, Final: true}, [][]byte{agg})
}

func TestSeaTunnelComplexExample(t *testing.T) {
	if err := runJob(t, strings.Replace(complexJob, "EXTRA", "", 1)); err != nil {
		t.Fatalf("SeaTunnel's own example fails: %v", err)
	}
	bad := `{ field_name = c_int, field_value = [{ rule_type = MAX, rule_value = 100 }] }`
	err := runJob(t, strings.Replace(complexJob, "EXTRA", bad, 1))
	if err == nil || !strings.Contains(err.Error(), `assert rule field "c_int" MAX 100 failed at row 1 (subtask 0): value 333`) {
		t.Fatalf("a broken rule: %v", err)
	}
}
