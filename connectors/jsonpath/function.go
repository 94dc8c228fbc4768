package jsonpath

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// function is one of Jayway's path functions, applied to the value the path
// reached: length()/size(), keys(), the numeric aggregations min(), max(),
// avg(), sum(), stddev(), and first(), last(), index(n). Jayway's concat()
// and append() are not supported (a plan-time error).
type function struct {
	name  string
	index int // index(n)
}

func (p *pathParser) function(name string) (*function, error) {
	p.i++ // (
	end := strings.IndexByte(p.s[p.i:], ')')
	if end < 0 {
		return nil, p.fail("unterminated call of %s()", name)
	}
	args := strings.TrimSpace(p.s[p.i : p.i+end])
	f := &function{name: name}
	switch name {
	case "length", "size", "keys", "min", "max", "avg", "sum", "stddev", "first", "last":
		if args != "" {
			return nil, p.fail("%s() takes no argument here", name)
		}
	case "index":
		n, err := strconv.Atoi(args)
		if err != nil {
			return nil, p.fail("index() takes a whole number, got %q", args)
		}
		f.index = n
	case "concat", "append":
		return nil, p.fail("the function %s() is not supported", name)
	default:
		return nil, p.fail("no function named %s()", name)
	}
	p.i += end + 1
	return f, nil
}

// errEmptyAggregation is Jayway's failure for an aggregation over nothing.
var errEmptyAggregation = errors.New("aggregation function attempted to calculate value using empty array")

func (f *function) apply(v any) (any, error) {
	switch f.name {
	case "length", "size":
		switch x := v.(type) {
		case []any:
			return intNumber(int64(len(x))), nil
		case *object:
			return intNumber(int64(len(x.keys))), nil
		}
		return nil, nil
	case "keys":
		if o, ok := v.(*object); ok {
			keys := make([]any, len(o.keys))
			for i, k := range o.keys {
				keys[i] = k
			}
			return keys, nil
		}
		return nil, nil
	case "first", "last", "index":
		arr, ok := v.([]any)
		if !ok {
			return nil, errEmptyAggregation
		}
		i := f.index
		switch f.name {
		case "first":
			i = 0
		case "last":
			i = -1
		}
		if i < 0 {
			if i += len(arr); i <= 0 { // Jayway refuses the first element by a negative index
				return nil, errors.New("target index larger than the array")
			}
		}
		if i >= len(arr) {
			return nil, errors.New("index out of the array")
		}
		return arr[i], nil
	}
	// The numeric aggregations: numbers in an array; the result a double.
	var nums []float64
	if arr, ok := v.([]any); ok {
		for _, e := range arr {
			if n, ok := e.(number); ok {
				nums = append(nums, n.f)
			}
		}
	}
	if len(nums) == 0 {
		return nil, errEmptyAggregation
	}
	var r float64
	switch f.name {
	case "min":
		r = math.Inf(1)
		for _, n := range nums {
			r = math.Min(r, n)
		}
	case "max":
		r = math.Inf(-1)
		for _, n := range nums {
			r = math.Max(r, n)
		}
	case "sum", "avg":
		for _, n := range nums {
			r += n
		}
		if f.name == "avg" {
			r /= float64(len(nums))
		}
	case "stddev":
		var sum, sumSq float64
		for _, n := range nums {
			sum += n
			sumSq += n * n
		}
		c := float64(len(nums))
		r = math.Sqrt(sumSq/c - sum*sum/c/c)
	}
	return floatNumber(r), nil
}
