package sql

import (
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
	"github.com/stactor/stactor/sqlengine"
)

func init() {
	connectors.RegisterTransform(Factory)
}

// Factory makes Sql transforms.
var Factory = connectors.TransformFactory{
	Name: "Sql",
	Options: []config.Option{
		{Key: "query", Type: config.TypeString, Required: true,
			Doc: "SELECT items FROM table [LATERAL VIEW [OUTER] EXPLODE(x) AS col] [WHERE condition]"},
	},
	Create: create,
}

// The compiled query is the transform: it filters and projects whole
// batches.
var _ connectors.Transform = (*sqlengine.Query)(nil)

func create(cfg *config.PluginConfig, input *row.Schema) (connectors.Transform, error) {
	// The FROM table may be named as plugin_input names it ("a,b" is two
	// names, as the planner reads it).
	var names []string
	for _, in := range cfg.Strings("plugin_input") {
		for _, n := range strings.Split(in, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	q, err := sqlengine.Compile(cfg.String("query"), input, sqlengine.InputNames(names...))
	if err != nil {
		return nil, cfg.Errorf("query", "%s", err.Error())
	}
	return q, nil
}
