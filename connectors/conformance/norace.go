//go:build !race

package conformance

// raceSlowdown scales the suite's time bounds in race-detector builds
// (race.go); 1 in others.
const raceSlowdown = 1
