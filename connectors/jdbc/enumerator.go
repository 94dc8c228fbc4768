package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// enumerator makes splits lazily, one when a reader asks for one, table
// after table: planning a table costs a MIN/MAX query, and each split of
// an unevenly keyed table one indexed LIMIT query, so a table of any size
// plans in constant memory. Its state is the plan and cursor of each
// table and the splits handed back, so a restore continues where it was.
type enumerator struct {
	ctx    connectors.EnumeratorContext
	r      *sourceResolved
	st     enumState
	q      keyQuerier
	ictx   context.Context // from Open, for the planning queries
	noMore map[int]bool    // readers told there are no more splits
}

// enumState is the enumerator's checkpointed state.
type enumState struct {
	Version int          `json:"v"`
	Plans   []*tablePlan `json:"plans"`
	Table   int          `json:"table"` // the table splits come from now
	Pending []*split     `json:"pending,omitempty"`
}

// tablePlan is how a table is cut, and how far.
type tablePlan struct {
	Planned  bool    `json:"planned,omitempty"`
	Mode     string  `json:"mode,omitempty"`     // single, even, keyset
	Max      int64   `json:"max,omitempty"`      // even: the greatest key
	Step     int64   `json:"step,omitempty"`     // even: keys per split
	MaxDec   string  `json:"max_dec,omitempty"`  // evendec: the greatest key, floored
	StepDec  string  `json:"step_dec,omitempty"` // evendec: keys per split
	Next     *keyVal `json:"next,omitempty"`     // where the next split starts (even: inclusive, keyset: exclusive)
	Ranges   bool    `json:"ranges,omitempty"`
	Done     bool    `json:"done,omitempty"`
	NullDone bool    `json:"null_done,omitempty"`
	Seq      int     `json:"seq,omitempty"`
}

const enumStateVersion = 1

func newEnumerator(ctx connectors.EnumeratorContext, r *sourceResolved, state []byte) (*enumerator, error) {
	e := &enumerator{ctx: ctx, r: r, noMore: map[int]bool{}}
	if state != nil {
		if err := json.Unmarshal(state, &e.st); err != nil || e.st.Version != enumStateVersion || len(e.st.Plans) != len(r.Tables) {
			return nil, fmt.Errorf("Jdbc enumerator state: not this source's (%v)", err)
		}
		return e, nil
	}
	e.st = enumState{Version: enumStateVersion, Plans: make([]*tablePlan, len(r.Tables))}
	for i := range e.st.Plans {
		e.st.Plans[i] = &tablePlan{}
	}
	return e, nil
}

// Open keeps ctx for the planning queries; it connects when a split is
// first needed.
func (e *enumerator) Open(ctx context.Context) error {
	e.ictx = ctx
	return nil
}

func (e *enumerator) Run() error { return nil }

// RegisterReader: readers ask for splits (HandleSplitRequest); one that
// was told there are no more is told again.
func (e *enumerator) RegisterReader(subtask int) error {
	if e.noMore[subtask] {
		e.ctx.SignalNoMoreSplits(subtask)
	}
	return nil
}

// HandleSplitRequest gives the reader the next split, or tells it there
// are none left.
func (e *enumerator) HandleSplitRequest(subtask int) error {
	s, err := e.next()
	if err != nil {
		return err
	}
	if s == nil {
		e.noMore[subtask] = true
		e.ctx.SignalNoMoreSplits(subtask)
		return nil
	}
	e.ctx.AssignSplits(subtask, s.encode())
	return nil
}

func (e *enumerator) AddSplitsBack(splits []connectors.Split, subtask int) error {
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			return err
		}
		e.st.Pending = append(e.st.Pending, s)
	}
	return nil
}

func (e *enumerator) SnapshotState(checkpointID int64) ([]byte, error) { return json.Marshal(e.st) }

func (e *enumerator) NotifyCheckpointComplete(checkpointID int64) error { return nil }

func (e *enumerator) Close() error {
	if e.q != nil {
		e.q.close()
		e.q = nil
	}
	return nil
}

// next is the next split, nil when every table is cut.
func (e *enumerator) next() (*split, error) {
	if n := len(e.st.Pending); n > 0 {
		s := e.st.Pending[0]
		e.st.Pending = e.st.Pending[1:]
		return s, nil
	}
	for e.st.Table < len(e.r.Tables) {
		s, err := e.nextOf(e.st.Table)
		if err != nil {
			return nil, fmt.Errorf("Jdbc: splitting %s: %w", e.r.Tables[e.st.Table].ID, err)
		}
		if s != nil {
			return s, nil
		}
		e.st.Table++
	}
	return nil, nil
}

func (e *enumerator) querier() (keyQuerier, context.Context, error) {
	ctx := e.ictx
	if ctx == nil {
		ctx = context.Background()
	}
	if e.q == nil {
		q, err := openQuerier(ctx, &e.r.Conn)
		if err != nil {
			return nil, nil, err
		}
		e.q = q
	}
	return e.q, ctx, nil
}

// nextOf is table ti's next split, nil when it has none left.
func (e *enumerator) nextOf(ti int) (*split, error) {
	t, p := e.r.Tables[ti], e.st.Plans[ti]
	if !p.Planned {
		if err := e.plan(t, p); err != nil {
			return nil, err
		}
		p.Planned = true
	}
	mk := func(s *split) *split {
		s.Table, s.Seq = ti, p.Seq
		p.Seq++
		return s
	}
	if !p.Done {
		switch p.Mode {
		case "single":
			p.Done = true
			return mk(&split{}), nil
		case "even":
			// Splits [start, start+step); the first is open below, the
			// last (the one whose end would pass the greatest key) above.
			s, start := &split{}, p.Next.I
			if p.Seq > 0 {
				s.Lo, s.LoIncl = &keyVal{I: start}, true
			}
			if uint64(p.Step) > uint64(p.Max)-uint64(start) {
				p.Done = true
				return mk(s), nil
			}
			s.Hi = &keyVal{I: start + p.Step}
			p.Next = s.Hi
			return mk(s), nil
		case "evendec":
			// As even, in whole numbers of any size.
			s := &split{}
			start, _ := new(big.Int).SetString(p.Next.S, 10)
			maxKey, _ := new(big.Int).SetString(p.MaxDec, 10)
			step, _ := new(big.Int).SetString(p.StepDec, 10)
			if start == nil || maxKey == nil || step == nil {
				return nil, fmt.Errorf("Jdbc enumerator state: bad decimal plan %q %q %q", p.Next.S, p.MaxDec, p.StepDec)
			}
			if p.Seq > 0 {
				s.Lo, s.LoIncl = &keyVal{S: start.String()}, true
			}
			if step.Cmp(new(big.Int).Sub(maxKey, start)) > 0 {
				p.Done = true
				return mk(s), nil
			}
			s.Hi = &keyVal{S: new(big.Int).Add(start, step).String()}
			p.Next = s.Hi
			return mk(s), nil
		case "keyset":
			q, ctx, err := e.querier()
			if err != nil {
				return nil, err
			}
			d := dialectSQL{name: e.r.Conn.dialect()}
			end, err := e.keysetEnd(ctx, q, d, t, p.Next)
			if err != nil {
				return nil, err
			}
			s := &split{Lo: p.Next}
			if end == nil {
				p.Done = true
				return mk(s), nil
			}
			s.Hi, s.HiIncl = end, true
			p.Next = end
			return mk(s), nil
		}
		p.Done = true
	}
	if t.Key != "" && t.KeyNullable && !p.NullDone {
		p.NullDone = true
		return mk(&split{IsNull: true}), nil
	}
	return nil, nil
}

// plan picks how table t is cut, as SeaTunnel's dynamic chunk splitter
// does: a table without split key is one split; an integer key whose
// values are evenly spread ((max-min+1)/rows within the distribution
// factor bounds), or any integer key with partition_num, is cut in equal
// key ranges; other keys are cut at every split.size-th key, found by an
// indexed query when the split is made. The first split is open below and
// the last open above, so rows outside the bounds are read too.
func (e *enumerator) plan(t *sourceTable, p *tablePlan) error {
	if t.Key == "" {
		p.Mode = "single"
		return nil
	}
	p.Mode = "keyset"
	decimalKey := t.keyType().ID == row.TypeDecimal && e.r.PartitionNum > 0
	if !t.keyType().IsInteger() && !decimalKey {
		return nil
	}
	q, ctx, err := e.querier()
	if err != nil {
		return err
	}
	d := dialectSQL{name: e.r.Conn.dialect()}
	k := d.quote(t.Key)
	stmt := "SELECT " + textCast(d, "MIN("+k+")") + ", " + textCast(d, "MAX("+k+")") + ", " + textCast(d, "COUNT(*)") + " FROM (" + t.Query + ") stactor_t"
	if !e.r.SelectCount {
		stmt = "SELECT " + textCast(d, "MIN("+k+")") + ", " + textCast(d, "MAX("+k+")") + " FROM (" + t.Query + ") stactor_t"
	}
	if e.r.Where != "" {
		stmt += " WHERE " + e.r.Where
	}
	vals, err := q.queryText(ctx, stmt)
	if err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	if len(vals) < 2 || vals[0] == nil || vals[1] == nil {
		p.Mode, p.Done = "keyset", true // no keys: only the null split, if any
		return nil
	}
	if decimalKey {
		return e.planDecimal(p, *vals[0], *vals[1])
	}
	lo, err1 := strconv.ParseInt(*vals[0], 10, 64)
	hi, err2 := strconv.ParseInt(*vals[1], 10, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("bounds %q..%q are not integers", *vals[0], *vals[1])
	}
	if e.r.LowerBound != "" {
		if lo, err = strconv.ParseInt(e.r.LowerBound, 10, 64); err != nil {
			return fmt.Errorf("partition_lower_bound %q is not an integer", e.r.LowerBound)
		}
	}
	if e.r.UpperBound != "" {
		if hi, err = strconv.ParseInt(e.r.UpperBound, 10, 64); err != nil {
			return fmt.Errorf("partition_upper_bound %q is not an integer", e.r.UpperBound)
		}
	}
	if hi < lo {
		hi = lo
	}
	span := float64(hi) - float64(lo) + 1
	if e.r.PartitionNum > 0 {
		p.Mode, p.Max, p.Ranges = "even", hi, true
		p.Step = int64(math.Ceil(span / float64(e.r.PartitionNum)))
	} else {
		rows, err := e.rowCount(ctx, q, d, t, vals)
		if err != nil {
			return err
		}
		if rows <= 0 {
			return nil // no statistics: keyset
		}
		factor := span / float64(rows)
		if factor < e.r.FactorLow || factor > e.r.FactorHigh {
			return nil
		}
		p.Mode, p.Max = "even", hi
		p.Step = int64(math.Ceil(factor * float64(e.r.SplitSize)))
	}
	p.Step = max(p.Step, 1)
	// The first split is open below; it ends one step above the minimum.
	p.Next = &keyVal{I: lo}
	return nil
}

// planDecimal is plan's even cut for a decimal key with partition_num
// (MySQL's bigint unsigned and decimal(p,0) keys hold values past int64,
// as SeaTunnel's BigDecimal ranges do): partition_num equal ranges of
// whole numbers between the floors of the least and greatest keys (or the
// bounds), the first open below and the last open above. Without
// partition_num a decimal key is cut by keyset, every split.size-th key.
func (e *enumerator) planDecimal(p *tablePlan, minKey, maxKey string) error {
	lo, err1 := floorOf(minKey)
	hi, err2 := floorOf(maxKey)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("bounds %q..%q are not numbers", minKey, maxKey)
	}
	for _, b := range []struct {
		name, val string
		to        **big.Int
	}{{"partition_lower_bound", e.r.LowerBound, &lo}, {"partition_upper_bound", e.r.UpperBound, &hi}} {
		if b.val == "" {
			continue
		}
		n, ok := new(big.Int).SetString(b.val, 10)
		if !ok {
			return fmt.Errorf("%s %q is not an integer", b.name, b.val)
		}
		*b.to = n
	}
	if hi.Cmp(lo) < 0 {
		hi = lo
	}
	span := new(big.Int).Sub(hi, lo)
	span.Add(span, big.NewInt(1))
	n := big.NewInt(int64(e.r.PartitionNum))
	step := new(big.Int).Add(span, new(big.Int).Sub(n, big.NewInt(1)))
	step.Quo(step, n) // ceil(span / n)
	if step.Sign() <= 0 {
		step.SetInt64(1)
	}
	p.Mode, p.Ranges = "evendec", true
	p.MaxDec, p.StepDec = hi.String(), step.String()
	p.Next = &keyVal{S: lo.String()}
	return nil
}

// floorOf is the greatest whole number not above the decimal text s.
func floorOf(s string) (*big.Int, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok {
		return nil, fmt.Errorf("%q is not a number", s)
	}
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
	}
	return q, nil
}

// rowCount is the table's row count: COUNT(*) with use_select_count,
// else the statistics (PostgreSQL's reltuples, MySQL's TABLE_ROWS); 0 when
// unknown (a query).
func (e *enumerator) rowCount(ctx context.Context, q keyQuerier, d dialectSQL, t *sourceTable, vals []*string) (int64, error) {
	if e.r.SelectCount && len(vals) > 2 && vals[2] != nil {
		return strconv.ParseInt(*vals[2], 10, 64)
	}
	if t.Path == nil || t.Query != "SELECT * FROM "+d.table(*t.Path) {
		return 0, nil
	}
	var stmt string
	var args []any
	if d.name == dialectMySQL {
		stmt, args = "SELECT CAST(TABLE_ROWS AS CHAR) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", []any{t.Path.Database, t.Path.Table}
	} else {
		stmt, args = "SELECT CAST(c.reltuples AS bigint)::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2", []any{t.Path.Schema, t.Path.Table}
	}
	vals, err := q.queryText(ctx, stmt, args...)
	if err != nil || len(vals) == 0 || vals[0] == nil {
		return 0, err
	}
	n, _ := strconv.ParseInt(*vals[0], 10, 64)
	return n, nil
}

// keysetEnd is the split.size-th key after `after` (nil: from the first),
// nil when fewer keys are left.
func (e *enumerator) keysetEnd(ctx context.Context, q keyQuerier, d dialectSQL, t *sourceTable, after *keyVal) (*keyVal, error) {
	k := d.quote(t.Key)
	conds := []string{k + " IS NOT NULL"}
	var args []any
	if e.r.Where != "" {
		conds = append(conds, "("+e.r.Where+")")
	}
	if after != nil {
		a, err := after.arg(d.name, t.keyType())
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		conds = append(conds, k+" > "+d.placeholder(1))
	}
	stmt := "SELECT " + textCast(d, k) + " FROM (" + t.Query + ") stactor_t WHERE " + joinAnd(conds) +
		" ORDER BY " + k + " LIMIT 1 OFFSET " + strconv.FormatInt(e.r.SplitSize-1, 10)
	vals, err := q.queryText(ctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	if len(vals) == 0 || vals[0] == nil {
		return nil, nil
	}
	return parseKey(t.keyType(), *vals[0])
}

func joinAnd(conds []string) string {
	out := ""
	for i, c := range conds {
		if i > 0 {
			out += " AND "
		}
		out += c
	}
	return out
}
