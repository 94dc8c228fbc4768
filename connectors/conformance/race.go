//go:build race

package conformance

// raceSlowdown scales the suite's time bounds in race-detector builds,
// where every goroutine switch and memory access costs several times more.
const raceSlowdown = 3
