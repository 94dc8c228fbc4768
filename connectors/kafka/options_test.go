package kafka

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// Mistakes in the options are errors that name the option, before any
// connection.
func TestOptionErrors(t *testing.T) {
	schema := row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "name", Type: row.String})
	src := func(extra string) string {
		return "topic = a\nbootstrap.servers = \"127.0.0.1:1\"\nschema { fields { id = bigint } }\n" + extra
	}
	snk := func(extra string) string { return "topic = a\nbootstrap.servers = \"127.0.0.1:1\"\n" + extra }
	cases := []struct {
		name, body, want string
		sink             bool
		job              connectors.JobContext
	}{
		{"unknown kafka.config", src(`kafka.config { no.such.thing = 1 }`), "no.such.thing: not a consumer property", false, batchJob},
		{"producer property in a source", src(`kafka.config { linger.ms = 5 }`), "linger.ms: not a consumer property", false, batchJob},
		{"auto commit", src(`kafka.config { enable.auto.commit = "true" }`), "never committed automatically", false, batchJob},
		{"bad isolation", src(`kafka.config { isolation.level = x }`), "isolation.level: expected read_committed", false, batchJob},
		{"bad format", src(`format = avro`), `"format"`, false, batchJob},
		{"bad start mode", src(`start_mode = oldest`), `expected one of earliest`, false, batchJob},
		{"start mode object", src("start_mode = timestamp\nstart_mode.timestamp = 5"), `quote the key`, false, batchJob},
		{"specific without offsets", src(`start_mode = specific_offsets`), `needs start_mode.offsets`, false, batchJob},
		{"bad offsets key", src("start_mode = specific_offsets\n\"start_mode.offsets\" { nopartition = 1 }"), `"topic-partition" = offset`, false, batchJob},
		{"timestamp missing", src(`start_mode = timestamp`), `needs start_mode.timestamp`, false, batchJob},
		{"bad pattern", "topic = \"a(\"\npattern = true\nbootstrap.servers = x", "not a regular expression", false, batchJob},
		{"canal without schema", "topic = a\nbootstrap.servers = x\nformat = canal_json", "needs a schema", false, batchJob},
		{"topic and table_list", src(`table_list = [{ topic = b }]`), "either table_list or topic", false, batchJob},
		{"no servers", "topic = a\nbootstrap.servers = \" , \"", "no broker address", false, batchJob},
		{"sasl without protocol", src(`kafka.config { sasl.mechanism = PLAIN }`), "needs security.protocol", false, batchJob},
		{"sink key field", snk(`partition_key_fields = [nope]`), `"nope" is not a field`, true, batchJob},
		{"sink topic field", snk("topic = \"${nope}\""), `"nope" is not a field`, true, batchJob},
		{"sink bad semantics", snk(`semantics = TWICE`), `"semantics"`, true, batchJob},
		{"sink consumer property", snk(`kafka.config { max.poll.records = 5 }`), "not a producer property", true, batchJob},
		{"sink bad acks", snk(`kafka.config { acks = 2 }`), "acks: expected all", true, batchJob},
		{"sink exactly once acks", snk("semantics = EXACTLY_ONCE\nkafka.config { acks = 1 }"), "EXACTLY_ONCE needs acks = all", true, batchJob},
		{"sink txn timeout", snk("semantics = EXACTLY_ONCE\nkafka.config { transaction.timeout.ms = 5000 }"), "must be longer than the checkpoint interval (10000 ms)", true, batchJob},
		{"sink txn timeout env", snk("semantics = EXACTLY_ONCE"), "transaction.timeout.ms (60000) must be longer than the checkpoint interval (120000 ms)", true,
			connectors.JobContext{JobID: "j", Mode: connectors.Streaming, Parallelism: 1, CheckpointInterval: 2 * time.Minute}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.sink {
				cfg, verr := pluginCfg(t, "sink Kafka", SinkFactory.Options, c.body)
				if err = verr; err == nil {
					_, err = SinkFactory.Create(cfg, []*row.Schema{schema}, nil, c.job)
				}
			} else {
				cfg, verr := pluginCfg(t, "source Kafka", SourceFactory.Options, c.body)
				if err = verr; err == nil {
					_, err = SourceFactory.Create(cfg, nil, c.job)
				}
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "job.conf:") {
				t.Fatalf("err has no position: %v", err)
			}
		})
	}
}

// The options SeaTunnel's examples pass in kafka.config are taken.
func TestKafkaConfigPassedThrough(t *testing.T) {
	body := `topic = a
bootstrap.servers = "127.0.0.1:1"
kafka.config = {
  client.id = client_1
  max.poll.records = 500
  auto.offset.reset = "earliest"
  enable.auto.commit = "false"
  fetch.max.wait.ms = 100
}`
	cfg, err := pluginCfg(t, "source Kafka", SourceFactory.Options, body)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := parseClientConfig(cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	if cc.maxPollRecords != 500 || cc.offsetReset != "earliest" || len(cc.opts) != 2 {
		t.Fatalf("parsed %+v", cc)
	}
}

// Resolve says clearly when no broker answers, and when a topic does not
// exist.
func TestResolveErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	body := "topic = a\nbootstrap.servers = \"" + dead + "\"\n"
	start := time.Now()
	_, err = resolveSourceErr(t, body, batchJob)
	if err == nil || !strings.Contains(err.Error(), "no Kafka broker at "+dead+" answers (3 attempts)") || !strings.Contains(err.Error(), "bootstrap.servers") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 25*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
	_, err = resolveSourceErr(t, "topic = \"nope,"+newTopic(t, 1)+"\"\nbootstrap.servers = \""+broker+"\"", batchJob)
	if err == nil || !strings.Contains(err.Error(), `topic "nope" does not exist`) {
		t.Fatalf("err = %v", err)
	}
	schema := row.MustSchema("t", row.Field{Name: "id", Type: row.BigInt})
	_, err = resolveSinkErr(t, "topic = nope\nbootstrap.servers = \""+broker+"\"", schema, batchJob)
	if err == nil || !strings.Contains(err.Error(), `topic "nope" does not exist`) {
		t.Fatalf("err = %v", err)
	}
	_, err = resolveSinkErr(t, "topic = "+newTopic(t, 2)+"\npartition = 2\nbootstrap.servers = \""+broker+"\"", schema, batchJob)
	if err == nil || !strings.Contains(err.Error(), `has 2 partitions, there is no partition 2`) {
		t.Fatalf("err = %v", err)
	}
}
