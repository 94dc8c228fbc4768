package localfile

import (
	"fmt"
	"math/big"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// fitDecimal rounds d to t's scale and checks that it fits t's precision,
// as row.Convert does for every other source.
func fitDecimal(t *row.Type, d decimal.Decimal) (decimal.Decimal, error) {
	d = d.Round(int32(t.Scale))
	if ip := d.Truncate(0).Abs().String(); ip != "0" && len(ip) > t.Precision-t.Scale {
		return d, fmt.Errorf("%s does not fit %s: more than %d digits before the point", d.String(), t, t.Precision-t.Scale)
	}
	return d, nil
}

// unscaled is d as an integer times 10^-scale.
func unscaled(d decimal.Decimal, scale int) *big.Int {
	d = d.Round(int32(scale))
	c := new(big.Int).Set(d.Coefficient())
	if e := int(d.Exponent()) + scale; e > 0 {
		c.Mul(c, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil))
	} else if e < 0 {
		c.Quo(c, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-e)), nil))
	}
	return c
}

// plainDecimal is Java's stripTrailingZeros().toPlainString(), SeaTunnel's
// text rendering of decimals.
func plainDecimal(d decimal.Decimal) string { return d.String() }
