package jsonpath

import "fmt"

// read evaluates the path against doc (root is the document $ refers to
// inside filters). A definite path gives its value, or an error when it
// reaches nothing; any other path gives the list of what it reaches,
// possibly empty. Errors follow Jayway's PathNotFoundException cases:
// a missing property or an index into a non-array on the definite part of
// the path, or a definite path without result.
func (p *path) read(doc, root any) (any, error) { return p.eval(doc, root, false) }

// readStrict is read with every property on the way required (Jayway's
// REQUIRE_PROPERTIES, used for the existence test in filters).
func (p *path) readStrict(doc, root any) (any, error) { return p.eval(doc, root, true) }

func (p *path) eval(doc, root any, strict bool) (any, error) {
	ev := evaluator{root: root, strict: strict}
	if err := ev.walk(p.steps, 0, doc); err != nil {
		return nil, err
	}
	if p.scanFn != nil {
		list := ev.results
		if f := p.scanFn.fn; f.name == "length" || f.name == "size" {
			// Jayway counts the children of what the scan found.
			n := 0
			for _, v := range list {
				if l := length(v); l > 0 && !isString(v) {
					n += l
				}
			}
			return intNumber(int64(n)), nil
		}
		if list == nil {
			list = []any{}
		}
		return p.scanFn.fn.apply(list)
	}
	if p.definite() {
		if len(ev.results) == 0 {
			return nil, fmt.Errorf("no results for path %s", p.src)
		}
		return ev.results[len(ev.results)-1], nil
	}
	if ev.results == nil {
		return []any{}, nil
	}
	return ev.results, nil
}

func isString(v any) bool { _, ok := v.(string); return ok }

type evaluator struct {
	root    any
	strict  bool
	results []any
}

// walk applies steps[k:] to model, collecting what the last step reaches.
func (ev *evaluator) walk(steps []*step, k int, model any) error {
	if k == len(steps) {
		ev.results = append(ev.results, model)
		return nil
	}
	s := steps[k]
	switch s.kind {
	case stepProp:
		return ev.property(steps, k, model)
	case stepIndex, stepSlice:
		return ev.array(steps, k, model)
	case stepWild:
		switch x := model.(type) {
		case *object:
			for _, v := range x.vals {
				if err := ev.walk(steps, k+1, v); err != nil {
					return err
				}
			}
		case []any:
			for _, v := range x {
				if err := ev.walk(steps, k+1, v); err != nil {
					return err
				}
			}
		}
		return nil
	case stepFilter:
		switch x := model.(type) {
		case *object:
			if s.filter.eval(x, ev.root) {
				return ev.walk(steps, k+1, x)
			}
		case []any:
			for _, v := range x {
				if s.filter.eval(v, ev.root) {
					if err := ev.walk(steps, k+1, v); err != nil {
						return err
					}
				}
			}
		default:
			if s.upstream {
				return fmt.Errorf("a filter cannot be applied to %s", describe(model))
			}
		}
		return nil
	case stepScan:
		return ev.scan(steps, k, model)
	case stepFunc:
		v, err := s.fn.apply(model)
		if err != nil {
			return err
		}
		return ev.walk(steps, k+1, v)
	}
	return nil
}

func (ev *evaluator) property(steps []*step, k int, model any) error {
	s := steps[k]
	obj, ok := model.(*object)
	if !ok {
		if !s.upstream {
			return nil
		}
		return fmt.Errorf("expected an object with property %q but found %s", s.names[0], describe(model))
	}
	if len(s.names) > 1 && s.leaf { // ['a','b'] at the end: one merged object
		merged := &object{}
		for _, n := range s.names {
			if v, ok := obj.get(n); ok {
				merged.set(n, v)
			} else if ev.strict {
				return fmt.Errorf("missing property %q", n)
			}
		}
		ev.results = append(ev.results, merged)
		return nil
	}
	for _, n := range s.names {
		v, ok := obj.get(n)
		if !ok {
			if ev.strict || (!s.leaf && s.upstream && s.definite()) {
				return fmt.Errorf("missing property %q", n)
			}
			continue
		}
		if err := ev.walk(steps, k+1, v); err != nil {
			return err
		}
	}
	return nil
}

func (ev *evaluator) array(steps []*step, k int, model any) error {
	s := steps[k]
	arr, ok := model.([]any)
	if !ok {
		if !s.upstream {
			return nil
		}
		return fmt.Errorf("an array index cannot be applied to %s", describe(model))
	}
	n := len(arr)
	at := func(i int) error { // Jayway's handleArrayIndex: negative from the end, outside ignored
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil
		}
		return ev.walk(steps, k+1, arr[i])
	}
	var from, to int
	switch {
	case s.kind == stepIndex:
		for _, i := range s.idx {
			if err := at(i); err != nil {
				return err
			}
		}
		return nil
	case !s.hasTo: // [from:]
		from = s.from
		if from < 0 {
			from = max(0, n+from)
		}
		to = n
	case !s.hasFrom: // [:to]
		to = s.to
		if to < 0 {
			to = n + to
		}
		to = min(n, to)
	default: // [from:to], as ArraySliceToken.sliceBetween (negative from counts from the end per index)
		from, to = s.from, min(n, s.to)
	}
	for i := from; i < to; i++ {
		if err := at(i); err != nil {
			return err
		}
	}
	return nil
}

// scan applies the step after '..' at model and at every depth below it,
// parents before children, as Jayway's ScanPathToken walks.
func (ev *evaluator) scan(steps []*step, k int, model any) error {
	target := steps[k+1]
	switch x := model.(type) {
	case *object:
		if ev.scanMatches(target, x) {
			if err := ev.walk(steps, k+1, x); err != nil {
				return err
			}
		}
		for _, v := range x.vals {
			if err := ev.scan(steps, k, v); err != nil {
				return err
			}
		}
	case []any:
		if ev.scanMatches(target, x) {
			if target.leaf {
				if err := ev.walk(steps, k+1, x); err != nil {
					return err
				}
			} else {
				// Jayway applies the rest of the path to every element here,
				// whatever the matched step selects.
				for _, v := range x {
					if err := ev.walk(steps, k+2, v); err != nil {
						return err
					}
				}
			}
		}
		for _, v := range x {
			if err := ev.scan(steps, k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func (ev *evaluator) scanMatches(target *step, model any) bool {
	switch target.kind {
	case stepProp:
		obj, ok := model.(*object)
		if !ok {
			return false
		}
		if !target.definite() {
			return true
		}
		for _, n := range target.names {
			if _, ok := obj.get(n); !ok {
				return false
			}
		}
		return true
	case stepIndex, stepSlice:
		_, ok := model.([]any)
		return ok
	case stepWild:
		return true
	case stepFilter:
		return target.filter.eval(model, ev.root)
	}
	return false
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case *object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
