package plan

import (
	"fmt"

	"github.com/stactor/stactor/connectors"
)

// checkSchemaChanges refuses, when the job is resolved, a job whose
// source emits schema changes (connectors.SchemaChangeSource) into an
// operator that cannot follow them: a transform that is not a
// SchemaEvolver, a sink that is not a SchemaChangeSink or says it cannot
// with its options (Jdbc with is_exactly_once or a custom query). At run
// time such a job would fail at the first ALTER TABLE (actors/task); the
// error names the source, its option and the operator, with both places
// in the file. Only Resolve checks: a plan resolved before is not
// refused on a restore or by a new leader.
func (p *Plan) checkSchemaChanges() error {
	for _, src := range p.Vertices {
		if src.Kind != SourceVertex {
			continue
		}
		s, ok := src.Source.(connectors.SchemaChangeSource)
		if !ok {
			continue
		}
		emits, option := s.EmitsSchemaChanges()
		if !emits {
			continue
		}
		seen := map[*Vertex]bool{}
		var walk func(v *Vertex) error
		walk = func(v *Vertex) error {
			if seen[v] {
				return nil
			}
			seen[v] = true
			var why error
			switch v.Kind {
			case TransformVertex:
				if !v.evolves {
					why = fmt.Errorf("the transform does not follow schema changes (FilterRowKind does)")
				}
			case SinkVertex:
				if sc, ok := v.Sink.(connectors.SchemaChangeSink); !ok {
					why = fmt.Errorf("the sink cannot apply schema changes (Jdbc can)")
				} else {
					why = sc.SchemaChanges()
				}
			}
			if why != nil {
				return src.Config.Errorf(option, "true makes the source emit its tables' ALTER TABLE, which %s (line %d) cannot follow: %v; set %s = false or change %s",
					v.Plugin.Where(), v.Plugin.Pos.Line, why, option, v.Plugin.Where())
			}
			for _, e := range v.Out {
				if err := walk(e.To); err != nil {
					return err
				}
			}
			return nil
		}
		for _, e := range src.Out {
			if err := walk(e.To); err != nil {
				return err
			}
		}
	}
	return nil
}
