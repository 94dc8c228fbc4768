package connectors

import (
	"fmt"
	"regexp"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/row"
)

// MultiTableOptions are accepted by every transform, as SeaTunnel's
// TransformCommonOptions are: RegisterTransform adds them to each factory.
//
// For each input table (its id, db.table as SeaTunnel's TablePath prints
// it), SeaTunnel's AbstractMultiCatalogTransform picks the options:
//   - the table_transform entry whose table_path equals the id: that entry's
//     options alone (nothing is inherited from the plugin's own options);
//   - else the plugin's options when table_match_regex matches the whole id;
//   - else none: the table passes through unchanged.
var MultiTableOptions = []config.Option{
	{Key: "table_match_regex", Type: config.TypeString, Default: ".*",
		Doc: "only tables whose id matches this regular expression (whole id) are transformed; others pass through"},
	{Key: "table_transform", Type: config.TypeList,
		Doc: "per-table options: [ { table_path = \"db.t\", <the transform's options> }, ... ]"},
}

// tablePathOption is table_transform's key for the table an entry is for.
// tablePath is what SeaTunnel's Copy read before the common option existed
// (CopyTransformConfig.TableTransforms, @JsonAlias("table_path")); its
// older job files still use it.
var tablePathOption = config.Option{Key: "table_path", Type: config.TypeString, Required: true,
	Fallbacks: []string{"tablePath"}, Doc: "the table (db.t) these options are for"}

// withMultiTable gives a factory the multi-table options: its Create is
// called with the options that apply to the input table, and a table no
// options apply to gets PassThrough.
func withMultiTable(f TransformFactory) TransformFactory {
	own := f.Options
	create := f.Create
	f.Options = append(append([]config.Option(nil), own...), MultiTableOptions...)
	f.Create = func(cfg *config.PluginConfig, input *row.Schema) (Transform, error) {
		tcfg, err := tableConfig(cfg, own, input.TableID)
		if err != nil {
			return nil, err
		}
		if tcfg == nil {
			return PassThrough(input), nil
		}
		return create(tcfg, input)
	}
	return f
}

// tableConfig is the options of cfg's transform for table (nil: the table
// is not transformed). own are the transform's own declared options, which
// a table_transform entry is checked against.
func tableConfig(cfg *config.PluginConfig, own []config.Option, table string) (*config.PluginConfig, error) {
	re, err := regexp.Compile(`^(?:` + cfg.String("table_match_regex") + `)$`)
	if err != nil {
		return nil, cfg.Errorf("table_match_regex", "bad regular expression: %v", err)
	}
	if list := cfg.Raw("table_transform"); list != nil {
		for i, entry := range list.Items {
			where := fmt.Sprintf("%s: table_transform[%d]", cfg.Where, i)
			if entry.Kind != hocon.Object {
				return nil, cfg.ErrorAt(entry, fmt.Sprintf("table_transform[%d]", i), "expected { table_path = \"db.t\", <options> }")
			}
			path, _ := entryTablePath(entry)
			if path == nil || path.String() != table {
				continue
			}
			// Unknown keys of an entry are ignored without a warning: the
			// warnings of a plugin's options are gathered at plan time,
			// before any table is known.
			tcfg, _, err := config.Validate(cfg.File, where, cfg.Name, entry.Pos, entry, own, []config.Option{tablePathOption})
			if err != nil {
				return nil, err
			}
			return tcfg, nil
		}
	}
	if !re.MatchString(table) {
		return nil, nil
	}
	return cfg, nil
}

// entryTablePath is the table_path (or tablePath) of a table_transform entry.
func entryTablePath(entry *hocon.Value) (*hocon.Value, string) {
	for _, k := range append([]string{tablePathOption.Key}, tablePathOption.Fallbacks...) {
		if v := entry.Get(k); v != nil && v.Kind != hocon.Null {
			return v, k
		}
	}
	return nil, ""
}

// PassThrough is the transform of a table that is not transformed: its
// batches go on as they are (SeaTunnel's IdentityMapTransform).
func PassThrough(schema *row.Schema) Transform { return passThrough{schema} }

type passThrough struct{ schema *row.Schema }

var _ Transform = passThrough{}
var _ BatchBorrower = passThrough{}

// BorrowsBatches: Process hands the caller's batch back and keeps nothing.
func (passThrough) BorrowsBatches() {}

func (p passThrough) OutputSchema() *row.Schema { return p.schema }

// Process returns b itself: batches are immutable, so sharing is safe.
func (p passThrough) Process(b *row.Batch) (*row.Batch, error) { return b, nil }
