package resources

import "fmt"

// Profile is an amount of resources: CPU in cores and memory in MiB.
type Profile struct {
	CPU      float64
	MemoryMB int64
}

// Merge is p plus o.
func (p Profile) Merge(o Profile) Profile {
	return Profile{CPU: p.CPU + o.CPU, MemoryMB: p.MemoryMB + o.MemoryMB}
}

// Subtract is p minus o.
func (p Profile) Subtract(o Profile) Profile {
	return Profile{CPU: p.CPU - o.CPU, MemoryMB: p.MemoryMB - o.MemoryMB}
}

// EnoughThan tells whether p covers o in every dimension.
func (p Profile) EnoughThan(o Profile) bool {
	return p.CPU+1e-9 >= o.CPU && p.MemoryMB >= o.MemoryMB
}

func (p Profile) String() string { return fmt.Sprintf("%.2g CPU, %d MiB", p.CPU, p.MemoryMB) }
