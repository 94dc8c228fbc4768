// Package harness is what the benchmark programs (cmd/peers, cmd/figures)
// share: building the binaries under test, running one process with its
// wall time, CPU time and peak resident memory (wait4's rusage), describing
// the machine, and writing a program's section of RESULTS.md.
//
// Every process runs with a deadline and all its files under a temporary
// directory; nothing talks to the network.
package harness
