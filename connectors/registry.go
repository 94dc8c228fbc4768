package connectors

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/row"
)

// SourceFactory makes a Source in two steps (DESIGN §2, "a job is resolved
// once"):
//
//   - Resolve may do I/O (fetch catalog tables, check the server, list
//     what is plan-time work). It runs once per job, on the master, in the
//     job's planner goroutine — never inside an actor's message handler —
//     with ctx cancelled on cancel and after the resolve timeout. It returns
//     the connector's own encoding of what it found; the resolved plan
//     carries those bytes to every node, so every node sees the same
//     tables, splits and parallelism. A nil Resolve resolves to nothing.
//   - Create makes the Source from the checked options and the bytes
//     Resolve returned (nil without Resolve). It does no I/O: it runs on
//     the master to check the plan and again wherever a part is deployed.
//     It checks what Options cannot (schemas, relations between options)
//     and returns errors through cfg.Errorf so they carry a position.
//
// What either step finds to tell the user without failing the job (an
// option accepted but read otherwise than SeaTunnel does, a file read
// otherwise than the options say) is cfg.Warnf, placed at the option;
// the planner reports the plugin's config's warnings as plan warnings. A
// plugin that validates parts of its body into configs of their own
// passes their warnings up with cfg.KeepWarnings.
type SourceFactory struct {
	Name    string // SeaTunnel's plugin name, e.g. "FakeSource"
	Options []config.Option
	// Delivery declares the source's guarantee (Replayable for one whose
	// positions are checkpointed).
	Delivery Delivery
	Resolve  func(ctx context.Context, cfg *config.PluginConfig, job JobContext) ([]byte, error)
	Create   func(cfg *config.PluginConfig, resolved []byte, job JobContext) (Source, error)
}

// TransformFactory makes a Transform for one input table. Transforms are
// pure: Create does no I/O, so there is no resolve step.
type TransformFactory struct {
	Name    string
	Options []config.Option
	// Create builds the transform for input; it checks field names and
	// types against input and reports mistakes through cfg.Errorf. It is
	// called once at plan time and again for each subtask.
	Create func(cfg *config.PluginConfig, input *row.Schema) (Transform, error)
}

// SinkFactory makes a Sink for its input tables in the same two steps as
// SourceFactory: Resolve (optional, may do I/O, once per job on the master:
// check the server, read the target table's catalog) and Create (no I/O,
// from the checked options and the resolved bytes, on every node).
type SinkFactory struct {
	Name    string
	Options []config.Option
	// Delivery declares the sink's guarantee and the options it hangs on.
	Delivery Delivery
	Resolve  func(ctx context.Context, cfg *config.PluginConfig, inputs []*row.Schema, job JobContext) ([]byte, error)
	Create   func(cfg *config.PluginConfig, inputs []*row.Schema, resolved []byte, job JobContext) (Sink, error)
}

var registry = struct {
	sync.RWMutex // guards the maps; registration happens in init()
	sources      map[string]SourceFactory
	transforms   map[string]TransformFactory
	sinks        map[string]SinkFactory
}{sources: map[string]SourceFactory{}, transforms: map[string]TransformFactory{}, sinks: map[string]SinkFactory{}}

func key(name string) string { return strings.ToLower(name) }

// RegisterSource makes a source known by its name. Call it from init().
func RegisterSource(f SourceFactory) {
	registry.Lock()
	defer registry.Unlock()
	registry.sources[key(f.Name)] = f
}

// RegisterTransform makes a transform known by its name. The registered
// factory also takes the multi-table options every SeaTunnel transform has
// (MultiTableOptions): its Create sees the options that apply to the input
// table, and a table that none apply to passes through.
func RegisterTransform(f TransformFactory) {
	registry.Lock()
	defer registry.Unlock()
	registry.transforms[key(f.Name)] = withMultiTable(f)
}

// RegisterSink makes a sink known by its name.
func RegisterSink(f SinkFactory) {
	registry.Lock()
	defer registry.Unlock()
	registry.sinks[key(f.Name)] = f
}

// LookupSource finds a source by name (case-insensitively).
func LookupSource(name string) (SourceFactory, error) {
	registry.RLock()
	defer registry.RUnlock()
	if f, ok := registry.sources[key(name)]; ok {
		return f, nil
	}
	return SourceFactory{}, unknown("source", name, names(registry.sources))
}

// LookupTransform finds a transform by name.
func LookupTransform(name string) (TransformFactory, error) {
	registry.RLock()
	defer registry.RUnlock()
	if f, ok := registry.transforms[key(name)]; ok {
		return f, nil
	}
	return TransformFactory{}, unknown("transform", name, names(registry.transforms))
}

// LookupSink finds a sink by name.
func LookupSink(name string) (SinkFactory, error) {
	registry.RLock()
	defer registry.RUnlock()
	if f, ok := registry.sinks[key(name)]; ok {
		return f, nil
	}
	return SinkFactory{}, unknown("sink", name, names(registry.sinks))
}

// Names lists the registered plugins of a kind ("source", "transform", "sink").
func Names(kind string) []string {
	registry.RLock()
	defer registry.RUnlock()
	switch kind {
	case "source":
		return names(registry.sources)
	case "transform":
		return names(registry.transforms)
	case "sink":
		return names(registry.sinks)
	}
	return nil
}

func names[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for _, f := range m {
		switch x := any(f).(type) {
		case SourceFactory:
			out = append(out, x.Name)
		case TransformFactory:
			out = append(out, x.Name)
		case SinkFactory:
			out = append(out, x.Name)
		}
	}
	sort.Strings(out)
	return out
}

func unknown(kind, name string, known []string) error {
	return fmt.Errorf("unknown %s plugin %q (known: %s)", kind, name, strings.Join(known, ", "))
}

// Plugin describes a registered plugin for listings (`stactor plugins`):
// its kind ("source", "transform", "sink"), name, the options its
// validator checks, and for a source or sink its declared Delivery.
type Plugin struct {
	Kind     string
	Name     string
	Options  []config.Option
	Delivery *Delivery // nil for a transform (no side effects)
}

// Plugins lists every registered plugin: sources, transforms, sinks, each
// kind by name.
func Plugins() []Plugin {
	registry.RLock()
	defer registry.RUnlock()
	var out []Plugin
	for _, n := range names(registry.sources) {
		f := registry.sources[key(n)]
		out = append(out, Plugin{Kind: "source", Name: f.Name, Options: f.Options, Delivery: &f.Delivery})
	}
	for _, n := range names(registry.transforms) {
		f := registry.transforms[key(n)]
		out = append(out, Plugin{Kind: "transform", Name: f.Name, Options: f.Options})
	}
	for _, n := range names(registry.sinks) {
		f := registry.sinks[key(n)]
		out = append(out, Plugin{Kind: "sink", Name: f.Name, Options: f.Options, Delivery: &f.Delivery})
	}
	return out
}

// Guarantee is the plugin's declared guarantee in one line.
func (p Plugin) Guarantee() string {
	if p.Delivery == nil {
		return "(no side effects)"
	}
	return p.Delivery.Summary
}
