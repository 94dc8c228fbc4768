package connectors

import (
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/row"
)

// Guarantee is a connector's delivery guarantee, weakest first, so that a
// pipeline guarantees the least of its sources' and sinks'.
//
// For a source: ExactlyOnce means replayable (its positions are in the
// checkpoints, so a restore reads on from exactly where the checkpoint
// was); None means a restore may skip or repeat rows. For a sink:
// ExactlyOnce means two-phase commit on checkpoints (every row once in
// committed output after any failure); Idempotent means rows written again
// after a restore overwrite themselves (upserts by key), so the output
// converges to exactly-once; AtLeastOnce means a restore may write some rows
// again; None means output happens as rows arrive, without regard to
// checkpoints. Transforms have no side effects and limit nothing.
type Guarantee int

// The guarantees.
const (
	None Guarantee = iota
	AtLeastOnce
	Idempotent
	ExactlyOnce
)

var guaranteeNames = [...]string{"none", "at-least-once", "idempotent", "exactly-once"}

func (g Guarantee) String() string {
	if g >= 0 && int(g) < len(guaranteeNames) {
		return guaranteeNames[g]
	}
	return "?"
}

// Delivery is what a source or sink factory declares about its delivery
// guarantee (DESIGN §5). `stactor plugins`, `run --check`, `submit` and
// the README's connector table read it.
type Delivery struct {
	// Summary is one line: the guarantee and the options that decide it,
	// e.g. "exactly-once with is_exactly_once; idempotent with
	// enable_upsert and keys; else at-least-once".
	Summary string
	// Best is the strongest guarantee some options give.
	Best Guarantee
	// Of is the guarantee with these (checked) options and input tables
	// (nil for a source) and, when it is below Best, why, naming the
	// options. nil: always Best. It does no I/O.
	Of func(cfg *config.PluginConfig, inputs []*row.Schema) (Guarantee, string)
}

// With is the guarantee given cfg and inputs, and why it is below Best.
func (d Delivery) With(cfg *config.PluginConfig, inputs []*row.Schema) (Guarantee, string) {
	if d.Of == nil {
		return d.Best, ""
	}
	return d.Of(cfg, inputs)
}

// Replayable is the Delivery of a source whose readers checkpoint their
// positions: exactly-once into an exactly-once sink.
var Replayable = Delivery{Summary: "exactly-once: replayable, its positions are in the checkpoints", Best: ExactlyOnce}

// exactlyOnceKeys are the options by which SeaTunnel's connectors ask for
// exactly-once (Jdbc's is_exactly_once, file sinks' is_enable_transaction,
// Kafka's semantics, and the spellings other connectors use).
var exactlyOnceKeys = []string{"is_exactly_once", "exactly_once", "is_enable_transaction", "enable_exactly_once", "semantics", "sink.semantic", "delivery_guarantee"}

// AsksExactlyOnce tells whether a plugin's options ask for exactly-once
// in any of the spellings SeaTunnel's connectors use (true, or
// EXACTLY_ONCE / EXACTLY-ONCE), declared by the plugin or not; it returns
// the key and the value as written.
func AsksExactlyOnce(cfg *config.PluginConfig) (key, value string, ok bool) {
	for _, k := range exactlyOnceKeys {
		v := cfg.Lookup(k)
		if v == nil {
			continue
		}
		if b, isBool := v.Bool(); isBool {
			if b {
				return k, "true", true
			}
			continue
		}
		s := strings.ToUpper(strings.ReplaceAll(v.String(), "-", "_"))
		if s == "EXACTLY_ONCE" {
			return k, v.String(), true
		}
	}
	return "", "", false
}
