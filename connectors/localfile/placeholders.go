package localfile

import (
	"regexp"
	"strings"

	"github.com/stactor/stactor/row"
)

// tablePlaceholder is SeaTunnel's ${name} or ${name:default} table
// placeholder (PlaceholderUtils): the default, trimmed, stands in when the
// table has no such part.
var tablePlaceholder = regexp.MustCompile(`\$\{(database_name|schema_name|table_name|schema_full_name|table_full_name|primary_key|unique_key|field_names)(:[^}]*)?\}`)

// replaceTablePlaceholders fills SeaTunnel's table placeholders of a sink
// option (TablePlaceholderProcessor) from the input table: its id's parts
// (TablePath: table, db.table or db.schema.table), primary key, first
// unique key and field names. The job's own ${var} substitution happens in
// the client first and leaves these names as written.
func replaceTablePlaceholders(s string, in *row.Schema) string {
	if !strings.Contains(s, "${") {
		return s
	}
	db, schema, table := splitTableID(in.TableID)
	var path []string
	for _, p := range []string{db, schema} {
		if p != "" {
			path = append(path, p)
		}
	}
	values := map[string]string{
		"database_name":    db,
		"schema_name":      schema,
		"table_name":       table,
		"schema_full_name": strings.Join(path, "."),
		"table_full_name":  strings.Join(append(path, table), "."),
		"primary_key":      strings.Join(in.PrimaryKey, ","),
		"field_names":      strings.Join(in.Names(), ","),
	}
	for _, k := range in.ConstraintKeys {
		if k.Type == "UNIQUE_KEY" {
			var cols []string
			for _, c := range k.Columns {
				cols = append(cols, c.Name)
			}
			values["unique_key"] = strings.Join(cols, ",")
			break
		}
	}
	return tablePlaceholder.ReplaceAllStringFunc(s, func(m string) string {
		g := tablePlaceholder.FindStringSubmatch(m)
		if v := values[g[1]]; v != "" {
			return v
		}
		switch g[1] {
		case "primary_key", "unique_key":
			return m // SeaTunnel leaves these, default and all, when the table has none
		}
		if g[2] != "" {
			return strings.TrimSpace(g[2][1:])
		}
		return ""
	})
}

// splitTableID splits a table id as SeaTunnel's TablePath.of does: one
// part is the table, two are database.table, three
// database.schema.table.
func splitTableID(id string) (db, schema, table string) {
	parts := strings.Split(id, ".")
	switch len(parts) {
	case 1:
		return "", "", parts[0]
	case 2:
		return parts[0], "", parts[1]
	default:
		return parts[0], strings.Join(parts[1:len(parts)-1], "."), parts[len(parts)-1]
	}
}
