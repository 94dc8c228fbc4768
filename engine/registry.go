package engine

import cmap "github.com/orcaman/concurrent-map"

// protoactor's process registry is 1024 buckets of orcaman's concurrent
// map, each cut into SHARD_COUNT locked maps: 32 by default, so 32768
// maps (2.8 MiB of heap, live for the process, about twice that in peak
// memory at the default GOGC) to hold the few hundred actors a node runs.
// One shard per bucket still spreads them over 1024 locks. The value is
// read by every map operation, so it is set here, before any actor
// system exists, and never changed.
func init() { cmap.SHARD_COUNT = 1 }
