package jsonpath

import (
	"errors"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/row"
)

// handleWay is SeaTunnel's ErrorHandleWay: what a data error does.
type handleWay uint8

const (
	wayUnset   handleWay = iota // column: defer to row_error_handle_way
	wayFail                     // fail the job
	waySkip                     // column: write null; row: drop the row
	waySkipRow                  // column: drop the row
)

// column is one entry of columns: where to read, what to write.
type column struct {
	src     int       // input field
	srcType *row.Type // its type
	path    *path
	dest    string
	typ     *row.Type
	way     handleWay
	slot    int // output slot (transform.slots)
	doc     int // index of src in transform.sources
}

// readColumns reads the columns option. As SeaTunnel (since path,
// dest_field and dest_type may be lists), one entry with lists of the same
// length stands for that many columns.
func readColumns(cfg *config.PluginConfig, input *row.Schema) ([]*column, error) {
	const key = "columns"
	list := cfg.Raw(key)
	if len(list.Items) == 0 {
		return nil, cfg.Errorf(key, "lists no column; write columns = [{ src_field = ..., path = ..., dest_field = ... }]")
	}
	var cols []*column
	for i, item := range list.Items {
		at := func(v *hocon.Value, format string, args ...any) error {
			if v == nil {
				v = item
			}
			return cfg.ErrorAt(v, key, "column %d: "+format, append([]any{i + 1}, args...)...)
		}
		if item.Kind != hocon.Object {
			return nil, at(item, "expected { src_field = ..., path = ..., dest_field = ... }")
		}
		srcV := item.Get("src_field")
		src := scalar(srcV)
		if strings.TrimSpace(src) == "" {
			return nil, at(srcV, "src_field must name a field")
		}
		j := input.Index(src)
		if j < 0 {
			return nil, at(srcV, "field %q is not in table %s (fields: %s)", src, input.TableID, strings.Join(input.Names(), ", "))
		}
		switch t := input.Fields[j].Type; t.ID {
		case row.TypeString, row.TypeBytes, row.TypeArray, row.TypeMap, row.TypeRow:
		default:
			return nil, at(srcV, "field %q is %s; JsonPath reads string, bytes, array, map and row fields", src, t)
		}
		way := wayUnset
		if w := item.Get("column_error_handle_way"); w != nil {
			switch strings.ToUpper(scalar(w)) {
			case "FAIL":
				way = wayFail
			case "SKIP":
				way = waySkip
			case "SKIP_ROW":
				way = waySkipRow
			default:
				return nil, at(w, "column_error_handle_way must be FAIL, SKIP or SKIP_ROW, got %q", scalar(w))
			}
		}
		paths, pathVals, err := stringList(item.Get("path"))
		if err != nil || len(paths) == 0 {
			return nil, at(item.Get("path"), "path must be a JSONPath or a list of them")
		}
		dests, destVals, err := stringList(item.Get("dest_field"))
		if err != nil || len(dests) == 0 {
			return nil, at(item.Get("dest_field"), "dest_field must be a field name or a list of them")
		}
		types, typeVals := []string{"string"}, []*hocon.Value{nil}
		if item.Get("dest_type") != nil {
			if types, typeVals, err = stringList(item.Get("dest_type")); err != nil || len(types) == 0 {
				return nil, at(item.Get("dest_type"), "dest_type must be a type or a list of them")
			}
		}
		if len(paths) != len(dests) || len(paths) != len(types) {
			return nil, at(item, "path, dest_field and dest_type must list as many entries (%d, %d, %d)", len(paths), len(dests), len(types))
		}
		for k := range paths {
			p, err := compile(paths[k])
			if err != nil {
				return nil, at(pathVals[k], "%v", err)
			}
			dest := strings.TrimSpace(dests[k])
			if dest == "" {
				return nil, at(destVals[k], "dest_field must name a field")
			}
			typ, err := row.ParseType(strings.TrimSpace(types[k]))
			if err != nil {
				return nil, at(typeVals[k], "dest_type: %v", err)
			}
			cols = append(cols, &column{src: j, srcType: input.Fields[j].Type, path: p, dest: dest, typ: typ, way: way})
		}
	}
	return cols, nil
}

func scalar(v *hocon.Value) string {
	if v == nil || v.Kind == hocon.Object || v.Kind == hocon.Array || v.Kind == hocon.Null {
		return ""
	}
	return v.String()
}

// stringList reads a string or a list of strings, with each one's value
// for positions.
func stringList(v *hocon.Value) ([]string, []*hocon.Value, error) {
	if v == nil {
		return nil, nil, nil
	}
	items := []*hocon.Value{v}
	if v.Kind == hocon.Array {
		items = v.Items
	}
	out := make([]string, len(items))
	for i, it := range items {
		if it.Kind == hocon.Object || it.Kind == hocon.Array || it.Kind == hocon.Null {
			return nil, nil, errNotString
		}
		out[i] = it.String()
	}
	return out, items, nil
}

var errNotString = errors.New("expected a string")
