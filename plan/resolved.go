package plan

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

// encode is the plan in the form the master ships: the tree it was planned
// from, and per vertex its resolved bytes and output tables.
func (p *Plan) encode() *messages.ResolvedJob {
	r := &messages.ResolvedJob{Tree: config.EncodeTree(p.Job.Tree), ResolvedUnixMs: time.Now().UnixMilli()}
	for _, v := range p.Vertices {
		rv := &messages.ResolvedVertex{Id: int32(v.ID), Name: v.Name, Parallelism: int32(v.Parallelism), Resolved: v.Resolved}
		for _, t := range v.OutTables {
			rv.OutTables = append(rv.OutTables, row.EncodeSchema(t))
		}
		r.Vertices = append(r.Vertices, rv)
	}
	return r
}

// FromResolved rebuilds, on any node, the plan the master resolved: the
// same vertices, tables, pipelines and chains, with every source and sink
// created from the bytes its Resolve returned on the master. It does no
// I/O and reads no environment (DESIGN §2). name, when set, overrides
// env's job.name (as it did on the master). A plan that does not come out
// the same (a connector whose Create is not deterministic, a plan from
// another version) is an error naming the vertex.
func FromResolved(jobID, file, name string, r *messages.ResolvedJob) (*Plan, error) {
	if r == nil {
		return nil, fmt.Errorf("job %s has no resolved plan", jobID)
	}
	tree, err := config.DecodeTree(r.Tree)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", jobID, err)
	}
	job, err := config.FromTree(file, tree)
	if err != nil {
		return nil, err
	}
	if name != "" {
		job.Name = name
	}
	p, err := build(job, jobID, func(v *Vertex) ([]byte, error) {
		rv, err := resolvedVertex(r, v)
		if err != nil {
			return nil, err
		}
		return rv.Resolved, nil
	})
	if err != nil {
		return nil, err
	}
	if len(p.Vertices) != len(r.Vertices) {
		return nil, fmt.Errorf("job %s: the resolved plan has %d vertices, the job %d", jobID, len(r.Vertices), len(p.Vertices))
	}
	for _, v := range p.Vertices {
		rv, err := resolvedVertex(r, v)
		if err != nil {
			return nil, err
		}
		if len(rv.OutTables) != len(v.OutTables) {
			return nil, fmt.Errorf("%s: the resolved plan has %d output tables, this node makes %d", v.Name, len(rv.OutTables), len(v.OutTables))
		}
		for i, t := range v.OutTables {
			if !bytes.Equal(rv.OutTables[i], row.EncodeSchema(t)) {
				return nil, fmt.Errorf("%s: table %s differs from the resolved plan's", v.Name, t.TableID)
			}
		}
	}
	p.Resolved = r
	return p, nil
}

func resolvedVertex(r *messages.ResolvedJob, v *Vertex) (*messages.ResolvedVertex, error) {
	if v.ID >= len(r.Vertices) {
		return nil, fmt.Errorf("%s: not in the resolved plan", v.Name)
	}
	rv := r.Vertices[v.ID]
	if int(rv.Id) != v.ID || rv.Name != v.Name || int(rv.Parallelism) != v.Parallelism {
		return nil, fmt.Errorf("%s (parallelism %d): the resolved plan has %s (parallelism %d) there", v.Name, v.Parallelism, rv.Name, rv.Parallelism)
	}
	return rv, nil
}

// Tables are a resolved plan's output tables by vertex name.
func Tables(r *messages.ResolvedJob) (map[string][]*row.Schema, error) {
	out := map[string][]*row.Schema{}
	for _, rv := range r.Vertices {
		for _, raw := range rv.OutTables {
			s, err := row.DecodeSchema(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: resolved table: %w", rv.Name, err)
			}
			out[rv.Name] = append(out[rv.Name], s)
		}
	}
	return out, nil
}

// CheckCompatible tells whether a plan resolved afresh (a restore with a
// changed job file) can continue from state written under old: every
// source's table that old had must still be there, with every column it
// had, of the same type. New tables and new columns are allowed. The error
// names the source, table and column.
func CheckCompatible(old *messages.ResolvedJob, fresh *Plan) error {
	before, err := Tables(old)
	if err != nil {
		return err
	}
	var problems []string
	for _, v := range fresh.Vertices {
		if v.Kind != SourceVertex {
			continue
		}
		prev, ok := before[v.Name]
		if !ok {
			continue // a source the checkpoint did not have: nothing to restore
		}
		now := map[string]*row.Schema{}
		for _, t := range v.OutTables {
			now[t.TableID] = t
		}
		for _, t := range prev {
			cur := now[t.TableID]
			if cur == nil {
				problems = append(problems, fmt.Sprintf("%s: table %s is gone", v.Name, t.TableID))
				continue
			}
			for _, f := range t.Fields {
				i := cur.Index(f.Name)
				switch {
				case i < 0:
					problems = append(problems, fmt.Sprintf("%s: table %s: column %s is gone", v.Name, t.TableID, f.Name))
				case cur.Fields[i].Type.String() != f.Type.String():
					problems = append(problems, fmt.Sprintf("%s: table %s: column %s was %s, is now %s", v.Name, t.TableID, f.Name, f.Type, cur.Fields[i].Type))
				}
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the job's tables changed incompatibly since it was resolved: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Evolved are the tables (as "source: table") of old's sources that emit
// their tables' schema changes (connectors.SchemaChangeSource) whose
// columns a plan resolved afresh sees otherwise: the tables were altered
// since the job was resolved. Such a source's checkpoint continues its
// stream from the plan it was resolved with, whose schemas the stream
// changes as it reads the DDL; the fresh plan's would describe rows the
// stream has not reached yet (actors/jobmaster continues the old plan).
func Evolved(old *messages.ResolvedJob, fresh *Plan) ([]string, error) {
	before, err := Tables(old)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range fresh.Vertices {
		sc, ok := v.Source.(connectors.SchemaChangeSource)
		if v.Kind != SourceVertex || !ok {
			continue
		}
		if emits, _ := sc.EmitsSchemaChanges(); !emits {
			continue
		}
		now := map[string]*row.Schema{}
		for _, t := range v.OutTables {
			now[t.TableID] = t
		}
		for _, t := range before[v.Name] {
			if cur := now[t.TableID]; cur != nil && !row.SameColumns(cur, t) {
				out = append(out, v.Name+": "+t.TableID)
			}
		}
	}
	return out, nil
}
