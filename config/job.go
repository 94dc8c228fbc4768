package config

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/stactor/stactor/config/hocon"
)

// EnvOptions are the env {} keys stactor reads. Others (spark.*, flink.*)
// are warned about and ignored.
var EnvOptions = []Option{
	{Key: "job.mode", Type: TypeEnum, Enum: []string{"BATCH", "STREAMING"}, Default: "BATCH"},
	{Key: "job.name", Type: TypeString, Default: "SeaTunnel"},
	{Key: "parallelism", Type: TypeInt, Default: int64(1), Fallbacks: []string{"execution.parallelism"}},
	{Key: "checkpoint.interval", Type: TypeDuration, Fallbacks: []string{"execution.checkpoint.interval"}, Doc: "ms between checkpoints (engine default when unset)"},
	{Key: "checkpoint.timeout", Type: TypeDuration, Doc: "ms before a checkpoint is aborted (engine default when unset)"},
	{Key: "min-pause", Type: TypeDuration, Doc: "least ms between the end of one checkpoint and the next"},
	{Key: "read_limit.rows_per_second", Type: TypeInt},
	{Key: "read_limit.bytes_per_second", Type: TypeInt},
	{Key: "read_limit.adaptive", Type: TypeBool, Doc: "sources' rate follows the slowest sink's capacity, so that checkpoints stay within checkpoint.timeout"},
	{Key: "job.retry.times", Type: TypeInt, Default: int64(3)},
	{Key: "job.retry.interval.seconds", Type: TypeInt, Default: int64(3)},
	{Key: "tag_filter", Type: TypeObject},
}

// Job is a parsed job file.
type Job struct {
	File        string
	Tree        *hocon.Value // the parsed file, variables filled (ParseTree)
	Env         *PluginConfig
	Mode        string // BATCH or STREAMING
	Name        string
	Parallelism int

	CheckpointInterval time.Duration // 0: engine default
	CheckpointTimeout  time.Duration // 0: engine default
	MinPause           time.Duration
	RowsPerSecond      int64 // 0: no limit
	BytesPerSecond     int64
	AdaptiveReadLimit  bool // read_limit.adaptive
	RetryTimes         int
	RetryInterval      time.Duration
	TagFilter          map[string]string

	Sources    []*Plugin
	Transforms []*Plugin
	Sinks      []*Plugin
	Warnings   []Warning
}

// Plugin is one plugin block of a job file, before its own options are
// checked (the planner does that with the plugin's declarations).
type Plugin struct {
	Kind        string // "source", "transform" or "sink"
	Name        string
	Index       int // position within its block
	Pos         hocon.Pos
	Body        *hocon.Value
	Output      string   // plugin_output (or result_table_name); "" if unset
	Inputs      []string // plugin_input (or source_table_name); nil if unset
	Parallelism int      // 0: env's

	nth int // 1-based among the block's plugins of this name; 0 if the name is unique
}

// Where names the plugin in messages: "source FakeSource", or with its
// number among them ("source FakeSource #2") when the block has several
// plugins of that name.
func (p *Plugin) Where() string {
	if p.nth > 0 {
		return fmt.Sprintf("%s %s #%d", p.Kind, p.Name, p.nth)
	}
	return p.Kind + " " + p.Name
}

// pluginBlock reports whether path is a source, transform or sink block,
// whose plugins stay separate even when two have the same name: SeaTunnel
// reads each of these blocks as a list of plugins.
func pluginBlock(path []string) bool {
	if len(path) != 1 {
		return false
	}
	switch path[0] {
	case "source", "transform", "sink":
		return true
	}
	return false
}

// Load reads a job file. vars fill ${var} and ${var:default}; names not in
// vars are looked up in the environment.
func Load(path string, vars map[string]string) (*Job, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read job file: %w", err)
	}
	return Parse(path, src, vars)
}

// Parse reads a job file's text; file names it in errors. It is ParseTree
// and FromTree in one.
func Parse(file string, src []byte, vars map[string]string) (*Job, error) {
	root, err := ParseTree(file, src, vars)
	if err != nil {
		return nil, err
	}
	return FromTree(file, root)
}

// ParseTree is the submitting client's part (DESIGN §2): it parses the
// job file's text, reads its includes, and fills ${var} and ${var:default}
// from vars and then from this process's environment, as SeaTunnel's
// client does. The tree it returns is what the client ships; nodes never
// see the text.
func ParseTree(file string, src []byte, vars map[string]string) (*hocon.Value, error) {
	return parseTree(file, src, vars, true)
}

// ParseUntrusted parses a job file that arrived over the network (the REST
// API's submit): ${var} is filled from vars alone, never from the
// environment of the node that received it, and include is refused — a
// job's includes are read where it is submitted from, on the user's own
// files (the CLI), never on a node.
func ParseUntrusted(file string, src []byte, vars map[string]string) (*hocon.Value, error) {
	return parseTree(file, src, vars, false)
}

// MaxIncludeSize bounds a file a job includes.
const MaxIncludeSize = 4 << 20

// MaxRetryIntervalSeconds bounds job.retry.interval.seconds: a longer
// back-off is a mistake (and past about 292 years it overflows into no
// back-off at all).
const MaxRetryIntervalSeconds = 24 * 60 * 60

// readInclude reads an included file: a regular file of at most
// MaxIncludeSize bytes (an include of /dev/zero, a FIFO or a huge file is
// refused at once instead of hanging or exhausting memory).
func readInclude(path string) ([]byte, error) {
	// Stat before opening: opening a FIFO blocks until it has a writer.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > MaxIncludeSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxIncludeSize)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxIncludeSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxIncludeSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxIncludeSize)
	}
	return data, nil
}

func parseTree(file string, src []byte, vars map[string]string, local bool) (*hocon.Value, error) {
	readFile := readInclude
	if !local {
		readFile = func(path string) ([]byte, error) {
			return nil, fmt.Errorf("include is not allowed in a job submitted over the network; submit it with stactor submit, which reads includes on your machine")
		}
	}
	return hocon.Parse(src, hocon.Options{
		File:               file,
		SubstituteInQuoted: true,
		Resolve: func(name string) (string, bool) {
			if v, ok := vars[name]; ok {
				return v, true
			}
			if !local {
				return "", false
			}
			return os.LookupEnv(name)
		},
		// hocon already resolves an include against the including file.
		ReadFile:       readFile,
		KeepDuplicates: pluginBlock,
	})
}

// FromTree reads a job from its parsed tree: env checked, the plugins
// found (their own options are checked by the planner). It reads no file
// and no environment, so the master gets from a tree exactly what the
// client meant.
func FromTree(file string, root *hocon.Value) (*Job, error) {
	if root == nil || root.Kind != hocon.Object {
		return nil, &Error{Pos: hocon.Pos{File: file, Line: 1, Col: 1}, Msg: "the job is not a HOCON object"}
	}
	job := &Job{File: file, Tree: root}
	rootPos := hocon.Pos{File: file, Line: 1, Col: 1}
	for _, f := range root.Fields {
		switch f.Key {
		case "env", "source", "transform", "sink":
			if f.Value.Kind != hocon.Object {
				return nil, &Error{Pos: f.Value.Pos, Where: f.Key, Msg: "expected a block { ... }"}
			}
		default:
			job.Warnings = append(job.Warnings, Warning{Pos: f.KeyPos, Msg: fmt.Sprintf("unknown top-level block %q is ignored (expected env, source, transform, sink)", f.Key)})
		}
	}
	envBody := root.Get("env")
	envPos := rootPos
	if envBody != nil {
		envPos = envBody.Pos
	} else {
		envBody = &hocon.Value{Kind: hocon.Object, Pos: rootPos}
	}
	env, warns, err := Validate(file, "env", "env", envPos, envBody, EnvOptions)
	if err != nil {
		return nil, err
	}
	job.Warnings = append(job.Warnings, warns...)
	job.Env = env
	job.Mode = env.String("job.mode")
	job.Name = env.String("job.name")
	job.Parallelism = int(env.Int("parallelism"))
	if job.Parallelism < 1 {
		return nil, env.Errorf("parallelism", "must be at least 1, got %d", job.Parallelism)
	}
	job.CheckpointInterval = env.Duration("checkpoint.interval")
	job.CheckpointTimeout = env.Duration("checkpoint.timeout")
	job.MinPause = env.Duration("min-pause")
	for _, k := range []string{"checkpoint.interval", "checkpoint.timeout", "min-pause"} {
		if env.Duration(k) < 0 {
			return nil, env.Errorf(k, "must not be negative")
		}
	}
	job.RowsPerSecond = env.Int("read_limit.rows_per_second")
	job.BytesPerSecond = env.Int("read_limit.bytes_per_second")
	job.AdaptiveReadLimit = env.Bool("read_limit.adaptive")
	for _, k := range []string{"read_limit.rows_per_second", "read_limit.bytes_per_second", "job.retry.times", "job.retry.interval.seconds"} {
		if env.Int(k) < 0 {
			return nil, env.Errorf(k, "must not be negative")
		}
	}
	job.RetryTimes = int(env.Int("job.retry.times"))
	if n := env.Int("job.retry.interval.seconds"); n > MaxRetryIntervalSeconds {
		return nil, env.Errorf("job.retry.interval.seconds", "%d seconds is too long: at most %d (a day)", n, MaxRetryIntervalSeconds)
	}
	job.RetryInterval = time.Duration(env.Int("job.retry.interval.seconds")) * time.Second
	if tf := env.Raw("tag_filter"); tf != nil {
		job.TagFilter = map[string]string{}
		for _, f := range tf.Fields {
			job.TagFilter[f.Key] = f.Value.String()
		}
	}

	for _, kind := range []string{"source", "transform", "sink"} {
		block := root.Get(kind)
		if block == nil {
			continue
		}
		count := map[string]int{}
		for _, f := range block.Fields {
			count[f.Key]++
		}
		seen := map[string]int{}
		for i, f := range block.Fields {
			nth := 0
			if count[f.Key] > 1 {
				seen[f.Key]++
				nth = seen[f.Key]
			}
			p, warns, err := readPlugin(file, kind, i, nth, f)
			if err != nil {
				return nil, err
			}
			job.Warnings = append(job.Warnings, warns...)
			switch kind {
			case "source":
				job.Sources = append(job.Sources, p)
			case "transform":
				job.Transforms = append(job.Transforms, p)
			default:
				job.Sinks = append(job.Sinks, p)
			}
		}
	}
	if len(job.Sources) == 0 {
		return nil, &Error{Pos: posIn(root.Get("source"), rootPos), Where: "source", Msg: "the job has no source: add a source { ... } block with at least one plugin"}
	}
	if len(job.Sinks) == 0 {
		return nil, &Error{Pos: posIn(root.Get("sink"), rootPos), Where: "sink", Msg: "the job has no sink: add a sink { ... } block with at least one plugin"}
	}
	return job, nil
}

func posIn(v *hocon.Value, def hocon.Pos) hocon.Pos {
	if v == nil {
		return def
	}
	return v.Pos
}

func readPlugin(file, kind string, index, nth int, f *hocon.Field) (*Plugin, []Warning, error) {
	p := &Plugin{Kind: kind, Name: f.Key, Index: index, Pos: f.KeyPos, Body: f.Value, nth: nth}
	if f.Value.Kind != hocon.Object {
		return nil, nil, &Error{Pos: f.Value.Pos, Where: p.Where(), Msg: "expected the plugin's options in a block { ... }"}
	}
	common, _, err := Validate(file, p.Where(), p.Name, p.Pos, f.Value, CommonPluginOptions)
	if err != nil {
		return nil, nil, err
	}
	p.Output = strings.TrimSpace(common.String("plugin_output"))
	for _, in := range common.Strings("plugin_input") {
		for _, part := range strings.Split(in, ",") { // SeaTunnel accepts "a,b"
			if part = strings.TrimSpace(part); part != "" {
				if slices.Contains(p.Inputs, part) {
					// Reading a table twice would pass every row twice.
					return nil, nil, common.Errorf("plugin_input", "names table %q twice", part)
				}
				p.Inputs = append(p.Inputs, part)
			}
		}
	}
	if common.Has("parallelism") {
		p.Parallelism = int(common.Int("parallelism"))
		if p.Parallelism < 1 {
			return nil, nil, common.Errorf("parallelism", "must be at least 1, got %d", p.Parallelism)
		}
	}
	return p, nil, nil
}
