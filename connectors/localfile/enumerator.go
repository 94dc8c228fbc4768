package localfile

import (
	"context"
	"sort"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/splitenum"
)

// newEnumerator is SeaTunnel's MultipleTableFileSourceSplitEnumerator: it
// cuts the listed files into splits once (in Open, reading around block
// boundaries to align them with records), orders them by split id and
// gives the k-th to reader k % parallelism as soon as that reader
// registers, followed by "no more splits". Unlike SeaTunnel's, a large
// uncompressed text, csv or json file is several splits (line-aligned
// blocks), so parallel readers share it. A failed reader's splits go back
// to the reader of that index (modulo the parallelism, after a rescale).
func newEnumerator(ctx connectors.EnumeratorContext, cfg *sourceConfig, state []byte) (*splitenum.Enumerator[*split], error) {
	return splitenum.New(ctx, splitenum.Splits[*split]{
		Name:     "LocalFile",
		Discover: func(_ context.Context, n int) ([]*split, error) { return cfg.discover(n) },
		Encode:   (*split).encode,
		Decode:   decodeSplit,
		Owner:    func(s *split) int { return s.owner },
		Returned: func(s *split, subtask int) *split { s.owner = subtask; return s },
		Less:     func(a, b *split) bool { return a.id() < b.id() },
	}, state)
}

// discover cuts every listed file into splits, in split-id order, dealt
// round-robin to n readers.
func (sc *sourceConfig) discover(n int) ([]*split, error) {
	var all []*split
	for _, f := range sc.files {
		ss, err := sc.splitsOf(f)
		if err != nil {
			return nil, err
		}
		all = append(all, ss...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].id() < all[j].id() })
	for i, s := range all {
		s.owner = i % n
	}
	return all, nil
}
