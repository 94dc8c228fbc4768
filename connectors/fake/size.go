package fake

import "github.com/stactor/stactor/row"

// Bounds on what one generated row holds. Nested arrays and maps grow as
// array.size (or map.size) to the power of their depth: array.size = 4096
// with arrays three deep is 68 billion values a row. A row past
// maxValuesPerRow is refused when the job is planned, naming the option;
// below it, a poll generates at most maxValuesPerPoll values (fewer rows
// per batch for wide rows), so a batch stays within tens of MB.
const (
	maxValuesPerRow  = 1 << 16
	maxValuesPerPoll = 1 << 20
)

// valuesPerRow is how many values a generated row of s holds, counting
// every array element, map key and value and nested field; it saturates
// just above maxValuesPerRow.
func valuesPerRow(s *row.Schema, arraySize, mapSize int) int {
	n := 0
	for _, f := range s.Fields {
		n = min(n+valuesOf(f.Type, arraySize, mapSize), maxValuesPerRow+1)
	}
	return n
}

func valuesOf(t *row.Type, arraySize, mapSize int) int {
	switch t.ID {
	case row.TypeArray:
		return 1 + timesCapped(arraySize, valuesOf(t.Elem, arraySize, mapSize))
	case row.TypeMap:
		k, v := valuesOf(t.Key, arraySize, mapSize), valuesOf(t.Elem, arraySize, mapSize)
		return 1 + timesCapped(mapSize, min(k+v, maxValuesPerRow+1))
	case row.TypeRow:
		n := 1
		for _, f := range t.Fields {
			n = min(n+valuesOf(f.Type, arraySize, mapSize), maxValuesPerRow+1)
		}
		return n
	}
	return 1
}

// timesCapped is a*b, or just above maxValuesPerRow when that is more.
func timesCapped(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (maxValuesPerRow+1)/b {
		return maxValuesPerRow + 1
	}
	return min(a*b, maxValuesPerRow+1)
}

// rowsPerPoll is how many rows of t one poll generates, at most batch.
func (t *tableConfig) rowsPerPoll(batch int) int {
	if t.custom != nil || t.valuesPerRow <= 1 {
		return batch
	}
	return max(1, min(batch, maxValuesPerPoll/t.valuesPerRow))
}
