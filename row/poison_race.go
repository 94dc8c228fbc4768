//go:build race

package row

// poisonReleased: in race-detector builds (the engine's tests), released
// vectors are overwritten so that a use after release shows up as wrong
// rows (recycle.go).
const poisonReleased = true
