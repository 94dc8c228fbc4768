package tap

import (
	"math"
	"strconv"
	"strings"

	"github.com/stactor/stactor/row"
)

// Subject is the subject a vertex's tapped rows are published on.
func Subject(prefix, job string, vertex int) string {
	return prefix + ".tap." + job + "." + strconv.Itoa(vertex)
}

// AllSubjects matches the tap subjects of every vertex of a job.
func AllSubjects(prefix, job string) string { return prefix + ".tap." + job + ".*" }

// ControlSubject is where listeners of a job's taps announce themselves.
func ControlSubject(prefix, job string) string { return prefix + ".tapctl." + job }

// Interest is a listener's announcement, repeated every InterestInterval
// on ControlSubject, with a reply subject for the subtasks' Acks.
type Interest struct {
	Listener string  `json:"listener"`         // unique per listener
	Vertex   string  `json:"vertex,omitempty"` // selector; "" for every vertex
	Sample   float64 `json:"sample"`           // share of rows wanted, (0, 1]
	Bye      bool    `json:"bye,omitempty"`    // the listener is leaving
}

// Ack is a subtask's answer to the first interest of a listener that
// matched some of its vertices.
type Ack struct {
	Vertices []VertexRef `json:"vertices"`
	Pipeline int32       `json:"pipeline"`
	Attempt  int32       `json:"attempt"`
	Subtask  int32       `json:"subtask"`
}

// VertexRef names a vertex of an Ack, with its point's Message counters
// when the Ack was sent: the listener's baseline, so that rows dropped
// from then on are counted as missed even before its first message.
type VertexRef struct {
	ID      int    `json:"id"`
	Name    string `json:"name"`
	Sent    int64  `json:"sent"`
	Dropped int64  `json:"dropped"`
}

// Message is one publication of a point: some sampled rows of one table
// that left vertex Vertex in one subtask.
//
// Seq numbers the point's messages from 1 without gaps. Sent counts the
// rows the point has published, this message's included; Dropped the rows
// it could not publish (its queue was full, or past its rows-per-second
// cap); Seen the rows that left the vertex while the point was on. All
// three are cumulative for the point (one subtask of one attempt), so a
// listener computes what it missed from two messages it received.
type Message struct {
	Job      string   `json:"job"`
	Vertex   int      `json:"vertex"`
	Name     string   `json:"name"`
	Pipeline int32    `json:"pipeline"`
	Attempt  int32    `json:"attempt"`
	Subtask  int32    `json:"subtask"`
	Seq      uint64   `json:"seq"`
	Seen     int64    `json:"seen"`
	Sent     int64    `json:"sent"`
	Dropped  int64    `json:"dropped"`
	Table    string   `json:"table"`
	Fields   []string `json:"fields"`
	Types    []string `json:"types"`
	Rows     []Row    `json:"rows"`
}

// Row is one tapped row: its kind (INSERT, UPDATE_BEFORE, UPDATE_AFTER,
// DELETE) and its field values in Message.Fields' order. Integers and
// finite floats are JSON numbers, booleans booleans, null null; every
// other value (decimals, dates, timestamps, bytes, arrays, maps, rows,
// NaN) is a string as SeaTunnel prints it (row.Text).
type Row struct {
	Kind   string `json:"kind"`
	Values []any  `json:"values"`
}

// value is field j of row i as Row carries it.
func value(c *row.Column, i int) any {
	if c.IsNull(i) {
		return nil
	}
	v := c.Value(i)
	switch x := v.(type) {
	case int64, bool, string:
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return row.Text(c.Type, x)
		}
		return x
	}
	return row.Text(c.Type, v)
}

// Vertex describes a vertex of a subtask's chain for matching selectors.
type Vertex struct {
	ID     int
	Name   string   // Source[0]-FakeSource
	Plugin string   // FakeSource
	Tables []string // plugin_output and the tables it emits
}

// Matches tells whether selector sel (as stactor tap takes it) names v:
// empty, v's id, its name, its plugin's name or one of its tables, names
// compared without regard to case.
func (v Vertex) Matches(sel string) bool {
	sel = strings.TrimSpace(sel)
	if sel == "" || sel == strconv.Itoa(v.ID) || strings.EqualFold(sel, v.Name) || strings.EqualFold(sel, v.Plugin) {
		return true
	}
	for _, t := range v.Tables {
		if strings.EqualFold(sel, t) {
			return true
		}
	}
	return false
}
