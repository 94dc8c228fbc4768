//go:build !race

package row

// poisonReleased is off outside race-detector builds (recycle.go).
const poisonReleased = false
