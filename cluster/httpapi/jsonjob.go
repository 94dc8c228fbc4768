package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// seaTunnelJSON rewrites a job in SeaTunnel's REST JSON form, whose
// source, transform and sink are arrays of plugins named by plugin_name
// ({"source": [{"plugin_name": "FakeSource", ...}]}), into the block form
// the job parser reads ({"source": {"FakeSource": {...}}}; one plugin may
// appear twice). Anything else — HOCON, block-form JSON, text that is not
// JSON — is returned as it is, for the parser to judge.
func seaTunnelJSON(body []byte) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return body
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(trimmed, &top) != nil {
		return body
	}
	lists := false
	for _, k := range []string{"source", "transform", "sink"} {
		if v := bytes.TrimSpace(top[k]); len(v) > 0 && v[0] == '[' {
			lists = true
		}
	}
	if !lists {
		return body
	}
	keys := []string{}
	for k := range top {
		if k != "env" && k != "source" && k != "transform" && k != "sink" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, k := range append([]string{"env", "source", "transform", "sink"}, keys...) {
		v, ok := top[k]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		plugins, isList := pluginList(v)
		if !isList {
			b.Write(v)
			continue
		}
		b.WriteByte('{')
		for i, p := range plugins {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s:%s", p.name, p.body)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes()
}

type namedPlugin struct{ name, body []byte }

// pluginList reads an array of plugins with plugin_name; false for
// anything else (left for the parser to report).
func pluginList(v json.RawMessage) ([]namedPlugin, bool) {
	var items []map[string]json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		return nil, false
	}
	out := make([]namedPlugin, 0, len(items))
	for _, it := range items {
		name, ok := it["plugin_name"]
		var s string
		if !ok || json.Unmarshal(name, &s) != nil || s == "" {
			return nil, false
		}
		delete(it, "plugin_name")
		body, err := json.Marshal(it)
		if err != nil {
			return nil, false
		}
		out = append(out, namedPlugin{name: name, body: body})
	}
	return out, true
}
