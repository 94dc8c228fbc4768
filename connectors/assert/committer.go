package assert

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/stactor/stactor/connectors"
)

// Failure is a broken assertion. Retrying cannot mend it: Permanent says
// so to an engine that asks (see the package's report on commit retries).
type Failure struct {
	Msg string
}

func (f *Failure) Error() string { return f.Msg }

// Permanent marks the error as not worth retrying.
func (f *Failure) Permanent() bool { return true }

// committer checks the row-count rules on the combined counts of all
// writers: MAX_ROW at every checkpoint, MIN_ROW, MAX_ROW and table-names
// at the final one.
type committer struct {
	sink *sink
	// last is the highest checkpoint committed; total its counts. Infos
	// are cumulative, so an older or repeated checkpoint changes nothing.
	last  int64
	total map[string]int64
}

var _ connectors.AggregatedCommitter = (*committer)(nil)

// Combine adds up the writers' counts of one checkpoint.
func (c *committer) Combine(infos [][]byte) ([]byte, error) {
	sum := counts{Rows: map[string]int64{}}
	for _, info := range infos {
		if info == nil {
			continue
		}
		ci, err := decodeCounts(info)
		if err != nil {
			return nil, err
		}
		sum.Checkpoint = max(sum.Checkpoint, ci.Checkpoint)
		for t, n := range ci.Rows {
			sum.Rows[t] += n
		}
	}
	return sum.encode(), nil
}

// Commit takes the latest counts and checks the rules; it is idempotent.
func (c *committer) Commit(_ context.Context, ctx connectors.CommitContext, aggregated [][]byte) error {
	for _, a := range aggregated {
		if a == nil {
			continue
		}
		ci, err := decodeCounts(a)
		if err != nil {
			return err
		}
		id := ci.Checkpoint
		if id == 0 {
			id = ctx.CheckpointID
		}
		if id > c.last {
			c.last, c.total = id, ci.Rows
		}
	}
	return c.check(ctx.Final)
}

func (c *committer) check(final bool) error {
	// Each rules block judges the tables it is for, on their counts alone
	// (SeaTunnel makes an AssertSink per tables entry).
	s := c.sink
	if s.rules != nil {
		var tables []string
		for _, t := range s.tables {
			if _, own := s.perTable[t]; !own {
				tables = append(tables, t)
			}
		}
		for t := range c.total {
			if _, own := s.perTable[t]; !own {
				tables = append(tables, t)
			}
		}
		if err := c.checkSet(s.rules, tables, final); err != nil {
			return err
		}
	}
	inputs := map[string]bool{}
	for _, t := range s.tables {
		inputs[t] = true
	}
	for _, t := range sortedKeys(s.perTable) {
		if _, seen := c.total[t]; !inputs[t] && !seen {
			continue // an entry for no input table: SeaTunnel makes no sink of it
		}
		if err := c.checkSet(s.perTable[t], []string{t}, final); err != nil {
			return err
		}
	}
	return nil
}

// checkSet checks the count and table-names rules of rs over tables (the
// tables rs is for; with tables_configs, the table_paths it names).
func (c *committer) checkSet(rs *ruleSet, tables []string, final bool) error {
	mine := map[string]bool{}
	ruled := map[string]*tableRules{}
	for _, t := range tables {
		mine[t] = true
		if rs.all != nil {
			ruled[t] = rs.all
		}
	}
	if rs.all == nil {
		for t, tr := range rs.byTable {
			ruled[t] = tr
		}
	}
	count := func(t string) int64 {
		if rs.all == nil && !mine[t] {
			return 0 // another table's rows: this sink never sees them
		}
		return c.total[t]
	}
	for _, t := range sortedKeys(ruled) {
		n := count(t)
		for _, r := range ruled[t].rows {
			ok := true // other rule types are no count rules: SeaTunnel ignores them here
			switch r.typ {
			case ruleMaxRow:
				ok = float64(n) <= r.value
			case ruleMinRow:
				ok = !final || float64(n) >= r.value
			}
			if !ok {
				where := ""
				if rs.all == nil || len(ruled) > 1 || c.sink.multi {
					where = " for table " + t
				}
				return &Failure{Msg: fmt.Sprintf("assert rule %s %s failed%s: %d rows", r.typ,
					strconv.FormatFloat(r.value, 'f', -1, 64), where, n)}
			}
		}
	}
	if final && rs.tableNames != nil {
		var seen []string
		for t := range mine {
			if c.total[t] > 0 {
				seen = append(seen, t)
			}
		}
		sort.Strings(seen)
		want := append([]string(nil), rs.tableNames...)
		sort.Strings(want)
		if !sameSet(dedup(seen), dedup(want)) {
			return &Failure{Msg: fmt.Sprintf("assert rule table-names failed: table names: [%s] is not equal to [%s]",
				strings.Join(seen, ", "), strings.Join(rs.tableNames, ", "))}
		}
	}
	return nil
}

func dedup(xs []string) []string {
	var out []string
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// Abort has nothing to discard: Assert changes nothing outside.
func (c *committer) Abort(_ context.Context, ctx connectors.CommitContext, aggregated [][]byte) error {
	return nil
}

func (c *committer) Close() error { return nil }
