package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func init() {
	connectors.RegisterSource(SourceFactory)
}

// SourceFactory makes Kafka sources.
var SourceFactory = connectors.SourceFactory{
	Name:     "Kafka",
	Options:  sourceOptions,
	Delivery: connectors.Delivery{Summary: "exactly-once: replayable, its offsets are in the checkpoints", Best: connectors.ExactlyOnce},
	Resolve:  resolveSource,
	Create:   createSource,
}

// topicTable is one table of the source: its topics and how their records
// become rows.
type topicTable struct {
	topics     []string
	pattern    *regexp.Regexp
	group      string
	schema     *row.Schema
	decode     decoder
	flat       *flatJSON // format json with a schema of scalars: the fast path, tried first
	skipErrors bool
	startMode  string
	offsets    map[partitionRef]int64 // start_mode.offsets
	timestamp  int64                  // start_mode.timestamp
}

// sourceConfig is a Kafka source's checked options, shared read-only by
// its enumerator and readers.
type sourceConfig struct {
	servers   []string
	client    *clientConfig
	tables    []*topicTable
	commit    bool
	discovery time.Duration // 0: no partition discovery
	buffer    int
	bounded   bool
}

func parseSource(cfg *config.PluginConfig, job connectors.JobContext) (*sourceConfig, error) {
	sc := &sourceConfig{commit: cfg.Bool("commit_on_checkpoint"), bounded: job.Mode != connectors.Streaming}
	var err error
	if sc.servers, err = splitServers(cfg.String("bootstrap.servers")); err != nil {
		return nil, cfg.Errorf("bootstrap.servers", "%v", err)
	}
	if sc.client, err = parseClientConfig(cfg, false); err != nil {
		return nil, err
	}
	if ms := cfg.Int("partition-discovery.interval-millis"); ms > 0 {
		sc.discovery = time.Duration(ms) * time.Millisecond
	}
	if sc.buffer = int(cfg.Int("reader_cache_queue_size")); sc.buffer < 1 {
		return nil, cfg.Errorf("reader_cache_queue_size", "must be positive")
	}
	if list := cfg.Raw("table_list"); list != nil {
		if cfg.Has("topic") {
			return nil, cfg.Errorf("table_list", "set either table_list or topic, not both")
		}
		if len(list.Items) == 0 {
			return nil, cfg.Errorf("table_list", "must list at least one table")
		}
		for i, entry := range list.Items {
			if entry.Kind != hocon.Object {
				return nil, cfg.ErrorAt(entry, "table_list", "item %d: expected a block { topic = ..., schema = ... }", i+1)
			}
			ec, _, err := config.Validate(cfg.File, fmt.Sprintf("%s table_list[%d]", cfg.Where, i), cfg.Name, entry.Pos, entry, topicOptions)
			if err != nil {
				return nil, err
			}
			t, err := parseTopicTable(ec)
			if err != nil {
				return nil, err
			}
			sc.tables = append(sc.tables, t)
		}
	} else {
		t, err := parseTopicTable(cfg)
		if err != nil {
			return nil, err
		}
		sc.tables = append(sc.tables, t)
	}
	seen := map[string]bool{}
	for _, t := range sc.tables {
		if seen[t.schema.TableID] {
			return nil, cfg.Errorf("table_list", "two tables are named %q: give each schema its own table", t.schema.TableID)
		}
		seen[t.schema.TableID] = true
	}
	return sc, nil
}

func parseTopicTable(cfg *config.PluginConfig) (*topicTable, error) {
	t := &topicTable{group: cfg.String("consumer.group"), startMode: startGroup,
		skipErrors: cfg.String("format_error_handle_way") == "skip"}
	if v := cfg.Raw("start_mode"); v != nil {
		if v.Kind == hocon.Object {
			return nil, cfg.Errorf("start_mode", "is an object: HOCON reads an unquoted start_mode.offsets or start_mode.timestamp as a path into start_mode, replacing its value; quote the key: \"start_mode.offsets\" = {...}")
		}
		t.startMode = strings.ToLower(v.Text)
		if !slices.Contains(startModes, t.startMode) {
			return nil, cfg.Errorf("start_mode", "expected one of %s, got %q", strings.Join(startModes, ", "), v.Text)
		}
	}
	topic := strings.TrimSpace(cfg.String("topic"))
	if topic == "" {
		return nil, cfg.Errorf("topic", "missing; it is required: the topic(s) to read")
	}
	name := topic
	if cfg.Bool("pattern") {
		re, err := regexp.Compile(topic)
		if err != nil {
			return nil, cfg.Errorf("topic", "not a regular expression: %v", err)
		}
		t.pattern = re
	} else {
		for _, p := range strings.Split(topic, ",") {
			if p = strings.TrimSpace(p); p != "" {
				t.topics = append(t.topics, p)
			}
		}
		name = t.topics[0]
	}
	format := cfg.String("format")
	raw := cfg.Raw("schema") == nil
	if raw {
		if format != formatJSON && format != formatText {
			return nil, cfg.Errorf("schema", "format %s needs a schema", format)
		}
		t.schema = row.MustSchema(name, row.Field{Name: "content", Type: row.String, Nullable: true})
	} else {
		s, err := config.ParseSchema(cfg.Raw("schema"), name, cfg.Where)
		if err != nil {
			return nil, err
		}
		t.schema = s
	}
	delim := cfg.String("field_delimiter")
	if format == formatText && delim == "" {
		return nil, cfg.Errorf("field_delimiter", "must not be empty")
	}
	t.decode = newDecoder(format, delim, t.schema, raw)
	if format == formatJSON && !raw {
		t.flat = newFlatJSON(t.schema)
	}

	switch t.startMode {
	case startSpecific:
		v := cfg.Raw("start_mode.offsets")
		if v == nil || len(v.Fields) == 0 {
			return nil, cfg.Errorf("start_mode.offsets", "start_mode specific_offsets needs start_mode.offsets { \"topic-0\" = 0 }")
		}
		t.offsets = map[partitionRef]int64{}
		for _, f := range v.Fields {
			ref, ok := parsePartitionKey(f.Key)
			off, isInt := f.Value.Int()
			if !ok || !isInt || off < 0 {
				return nil, cfg.ErrorAt(f.Value, "start_mode.offsets", "%q = %s: expected \"topic-partition\" = offset (a whole number, at least 0)", f.Key, f.Value.Text)
			}
			t.offsets[ref] = off
		}
	case startTimestamp:
		if !cfg.Has("start_mode.timestamp") {
			return nil, cfg.Errorf("start_mode.timestamp", "start_mode timestamp needs start_mode.timestamp (ms since 1970)")
		}
		if t.timestamp = cfg.Int("start_mode.timestamp"); t.timestamp < 0 || t.timestamp > time.Now().Add(24*time.Hour).UnixMilli() {
			return nil, cfg.Errorf("start_mode.timestamp", "%d is not a time in ms since 1970 up to now", t.timestamp)
		}
	}
	return t, nil
}

// parsePartitionKey reads "topic-3" (a topic may have dashes itself).
func parsePartitionKey(s string) (partitionRef, bool) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 {
		return partitionRef{}, false
	}
	var p int32
	if _, err := fmt.Sscanf(s[i+1:], "%d", &p); err != nil || p < 0 || fmt.Sprint(p) != s[i+1:] {
		return partitionRef{}, false
	}
	return partitionRef{s[:i], p}, true
}

// resolvedSource is what Resolve found: the splits a fresh job starts with.
type resolvedSource struct {
	Splits []*split `json:"splits"`
}

func resolveSource(ctx context.Context, cfg *config.PluginConfig, job connectors.JobContext) ([]byte, error) {
	sc, err := parseSource(cfg, job)
	if err != nil {
		return nil, err
	}
	cl, adm, err := connect(ctx, sc.servers, sc.client)
	if err != nil {
		return nil, cfg.Errorf("bootstrap.servers", "%v", err)
	}
	defer cl.Close()
	var out resolvedSource
	for i, t := range sc.tables {
		parts, err := listPartitions(ctx, adm, t.topics, t.pattern)
		if err != nil {
			return nil, cfg.Errorf("topic", "%v", err)
		}
		splits, err := startSplits(ctx, adm, sc, i, parts)
		if err != nil {
			return nil, cfg.Errorf("start_mode", "%v", err)
		}
		out.Splits = append(out.Splits, splits...)
	}
	return json.Marshal(out)
}

func createSource(cfg *config.PluginConfig, resolved []byte, job connectors.JobContext) (connectors.Source, error) {
	sc, err := parseSource(cfg, job)
	if err != nil {
		return nil, err
	}
	var r resolvedSource
	if resolved != nil {
		if err := json.Unmarshal(resolved, &r); err != nil {
			return nil, fmt.Errorf("Kafka source: resolved form: %w", err)
		}
	}
	return &source{cfg: sc, splits: r.Splits}, nil
}

// source is a configured Kafka source.
type source struct {
	cfg    *sourceConfig
	splits []*split // the resolved start
}

var _ connectors.Source = (*source)(nil)

func (s *source) Tables() []*row.Schema {
	out := make([]*row.Schema, len(s.cfg.tables))
	for i, t := range s.cfg.tables {
		out[i] = t.schema
	}
	return out
}

// Boundedness: a BATCH job reads to the end offsets seen when it was
// resolved; a STREAMING one until cancelled.
func (s *source) Boundedness() connectors.Boundedness {
	if s.cfg.bounded {
		return connectors.Bounded
	}
	return connectors.Unbounded
}

func (s *source) CreateEnumerator(ctx connectors.EnumeratorContext, state []byte) (connectors.SplitEnumerator, error) {
	return newEnumerator(ctx, s.cfg, s.splits, state)
}

func (s *source) CreateReader(ctx connectors.ReaderContext) (connectors.Reader, error) {
	return newReader(ctx, s.cfg), nil
}
