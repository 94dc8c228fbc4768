package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
	"github.com/twmb/franz-go/pkg/kgo"
)

func init() {
	connectors.RegisterSink(SinkFactory)
}

// SinkFactory makes Kafka sinks.
var SinkFactory = connectors.SinkFactory{
	Name:    "Kafka",
	Options: sinkOptions,
	Delivery: connectors.Delivery{Summary: "exactly-once with semantics = EXACTLY_ONCE (transactions); at-least-once with AT_LEAST_ONCE; none with NON (the default)",
		Best: connectors.ExactlyOnce, Of: func(cfg *config.PluginConfig, _ []*row.Schema) (connectors.Guarantee, string) {
			switch cfg.String("semantics") {
			case semanticsExactlyOnce:
				return connectors.ExactlyOnce, ""
			case semanticsAtLeastOnce:
				return connectors.AtLeastOnce, "semantics = AT_LEAST_ONCE flushes at checkpoints without transactions; a restore sends some records again"
			}
			return connectors.None, "semantics = NON (the default) neither flushes at checkpoints nor uses transactions"
		}},
	Resolve: resolveSink,
	Create:  createSink,
}

const (
	// defaultTxnTimeout is the Java producer's transaction.timeout.ms.
	defaultTxnTimeout = time.Minute
	// engineCheckpointInterval is the engine's checkpoint interval when
	// env sets none (actors/checkpoint.DefaultConfig).
	engineCheckpointInterval = 10 * time.Second
	defaultTxnPrefix         = "stactor"
)

// sinkConfig is a Kafka sink's checked options, shared read-only by its
// writers and committers.
type sinkConfig struct {
	servers    []string
	client     *clientConfig
	topic      string // "" when topicField is used
	topicField int    // ${field}: the column naming each row's topic, -1 for none
	semantics  string
	keyCols    []int
	keyNames   []string
	keyField   int   // compatible_debezium_json: the column of the record key, else -1
	partition  int32 // -1: by key, or assign_partitions
	assign     []string
	encode     encoder
	txnTimeout time.Duration
	// txnPrefix names this sink's transactions: transaction_prefix, the
	// job and the sink's place in the job file.
	txnPrefix string
}

var topicField = regexp.MustCompile(`^\$\{(\w+)\}$`)

func parseSink(cfg *config.PluginConfig, inputs []*row.Schema, job connectors.JobContext) (*sinkConfig, error) {
	if len(inputs) != 1 {
		return nil, cfg.Errorf("plugin_input", "Kafka writes one table, got %d", len(inputs))
	}
	in := inputs[0]
	sc := &sinkConfig{semantics: strings.ToUpper(cfg.String("semantics")), topicField: -1, keyField: -1, partition: -1}
	var err error
	if sc.servers, err = splitServers(cfg.String("bootstrap.servers")); err != nil {
		return nil, cfg.Errorf("bootstrap.servers", "%v", err)
	}
	if sc.client, err = parseClientConfig(cfg, true); err != nil {
		return nil, err
	}
	topic := strings.TrimSpace(cfg.String("topic"))
	format := strings.ToLower(cfg.String("format"))
	if format == formatCompatibleDebezium {
		// The rows name their topics and carry their keys and values.
		var idx [3]int
		for n, f := range []string{"topic", "key", "value"} {
			if idx[n] = in.Index(f); idx[n] < 0 || in.Fields[idx[n]].Type.ID != row.TypeString {
				return nil, cfg.Errorf("format", "compatible_debezium_json writes rows (topic, key, value) of strings, as a CDC source with format = COMPATIBLE_DEBEZIUM_JSON emits; %s has no string field %q", in.TableID, f)
			}
		}
		sc.topicField, sc.keyField = idx[0], idx[1]
		value := idx[2]
		sc.encode = func(dst []byte, b *row.Batch, i int) []byte {
			if b.Cols[value].IsNull(i) {
				return nil // a tombstone
			}
			return append(dst, b.Cols[value].Str(i)...)
		}
	} else if m := topicField.FindStringSubmatch(topic); m != nil {
		if sc.topicField = in.Index(m[1]); sc.topicField < 0 {
			return nil, cfg.Errorf("topic", "%q is not a field of %s", m[1], in.TableID)
		}
	} else if topic == "" {
		return nil, cfg.Errorf("topic", "must not be empty")
	} else {
		sc.topic = topic
	}
	for _, k := range cfg.Strings("partition_key_fields") {
		i := in.Index(k)
		if i < 0 {
			return nil, cfg.Errorf("partition_key_fields", "%q is not a field of %s", k, in.TableID)
		}
		sc.keyCols = append(sc.keyCols, i)
		sc.keyNames = append(sc.keyNames, k)
	}
	if cfg.Has("partition") {
		p := cfg.Int("partition")
		if p < 0 || p > 1<<31-1 {
			return nil, cfg.Errorf("partition", "must be a partition number, at least 0")
		}
		sc.partition = int32(p)
	}
	sc.assign = cfg.Strings("assign_partitions")
	delim := cfg.String("field_delimiter")
	if format == formatText && delim == "" {
		return nil, cfg.Errorf("field_delimiter", "must not be empty")
	}
	if sc.encode == nil {
		sc.encode = newEncoder(format, delim)
	}

	sc.txnTimeout = defaultTxnTimeout
	if sc.client.txnTimeout > 0 {
		sc.txnTimeout = sc.client.txnTimeout
	}
	if sc.semantics == semanticsExactlyOnce {
		if a := sc.client.acks; a != "" && a != "all" && a != "-1" {
			return nil, cfg.Errorf("kafka.config", "acks: EXACTLY_ONCE needs acks = all")
		}
		interval := job.CheckpointInterval
		if interval <= 0 {
			interval = engineCheckpointInterval
		}
		if sc.txnTimeout <= interval {
			return nil, cfg.Errorf("kafka.config", "transaction.timeout.ms (%d) must be longer than the checkpoint interval (%d ms): a transaction stays open from one checkpoint to the commit after the next, and the broker aborts it after its timeout", sc.txnTimeout.Milliseconds(), interval.Milliseconds())
		}
	}
	prefix := cfg.String("transaction_prefix")
	if prefix == "" {
		prefix = defaultTxnPrefix
	}
	// The sink's place in the file tells two Kafka sinks of one job apart
	// and is the same on every node (DESIGN §2: one configuration).
	h := fnv.New32a()
	fmt.Fprintf(h, "%s:%d:%d", cfg.File, cfg.Pos.Line, cfg.Pos.Col)
	sc.txnPrefix = fmt.Sprintf("%s-%s-%08x", prefix, job.JobID, h.Sum32())
	return sc, nil
}

// resolvedSink is what Resolve found.
type resolvedSink struct {
	Partitions int32 `json:"partitions"` // of topic, 0 for ${field}
}

func resolveSink(ctx context.Context, cfg *config.PluginConfig, inputs []*row.Schema, job connectors.JobContext) ([]byte, error) {
	sc, err := parseSink(cfg, inputs, job)
	if err != nil {
		return nil, err
	}
	cl, adm, err := connect(ctx, sc.servers, sc.client)
	if err != nil {
		return nil, cfg.Errorf("bootstrap.servers", "%v", err)
	}
	defer cl.Close()
	var r resolvedSink
	if sc.topic != "" {
		parts, err := listPartitions(ctx, adm, []string{sc.topic}, nil)
		if err != nil {
			return nil, cfg.Errorf("topic", "%v", err)
		}
		r.Partitions = int32(len(parts))
		if sc.partition >= r.Partitions {
			return nil, cfg.Errorf("partition", "topic %s has %d partitions, there is no partition %d", sc.topic, r.Partitions, sc.partition)
		}
	}
	return json.Marshal(r)
}

func createSink(cfg *config.PluginConfig, inputs []*row.Schema, resolved []byte, job connectors.JobContext) (connectors.Sink, error) {
	sc, err := parseSink(cfg, inputs, job)
	if err != nil {
		return nil, err
	}
	return &sink{cfg: sc}, nil
}

// sink is a configured Kafka sink. With EXACTLY_ONCE its committer ends
// the writers' transactions after each completed checkpoint; it needs no
// local disk, so it commits wherever the engine runs it.
type sink struct {
	cfg *sinkConfig
}

var (
	_ connectors.SinkWithCommitter = (*sink)(nil)
	_ connectors.StaleAborter      = (*committer)(nil)
)

func (s *sink) CreateWriter(ctx context.Context, task connectors.TaskInfo, _ [][]byte) (connectors.Writer, error) {
	return newWriter(ctx, s.cfg, task)
}

func (s *sink) CreateCommitter() (connectors.Committer, error) {
	return &committer{cfg: s.cfg}, nil
}

// producerOpts are the options of every producer of the sink.
func (sc *sinkConfig) producerOpts() []kgo.Opt {
	opts := []kgo.Opt{kgo.ProducerLinger(5 * time.Millisecond)}
	switch {
	case sc.partition >= 0:
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	case len(sc.assign) > 0:
		opts = append(opts, kgo.RecordPartitioner(kgo.BasicConsistentPartitioner(func(string) func(*kgo.Record, int) int {
			return sc.assignPartition
		})))
	}
	return opts
}

// assignPartition is SeaTunnel's MessageContentPartitioner: the first of
// assign_partitions that the value contains picks the partition of its
// index; other values are hashed over the partitions after those.
func (sc *sinkConfig) assignPartition(r *kgo.Record, n int) int {
	v := string(r.Value)
	for i, a := range sc.assign {
		if i < n && strings.Contains(v, a) {
			return i
		}
	}
	rest := n - len(sc.assign)
	if rest <= 0 {
		return n - 1
	}
	h := fnv.New32a()
	h.Write(r.Value)
	return len(sc.assign) + int(h.Sum32()%uint32(rest))
}
