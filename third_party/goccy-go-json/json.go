// Package json stands in for github.com/goccy/go-json (go.mod replaces
// it with this directory). The one package of stactor's build that
// imports it, go-mysql's replication (MySQL CDC), calls only Marshal, to
// turn a decoded JSON column into text; goccy's Marshal is
// encoding/json's, made faster. The real package's init walks every type
// descriptor of the binary and allocates caches sized by that range (3.7
// MiB of heap in stactor, on top of the pages it touches), in every
// stactor process, for a call a MySQL CDC job with JSON columns makes; so
// the call goes to encoding/json, which gives the same bytes.
package json

import "encoding/json"

// Marshal is encoding/json.Marshal.
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }

// Unmarshal is encoding/json.Unmarshal.
func Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
