// Package plan turns a parsed job file into the plans of DESIGN §2:
//
//	JobConfig ──▶ LogicalDag ──▶ pipelines and fused chains
//
// Build creates every plugin through its factory (checking its options and
// the schemas between plugins), wires plugin_output / plugin_input into
// edges, splits the DAG into pipelines (connected parts, each its own
// checkpoint and failure domain) and fuses vertices into chains: a vertex
// joins its upstream's chain when its only input is a forward edge (same
// parallelism, no redistribution). Only edges between chains are channels.
//
// Planning is deterministic: the same job file and variables give the same
// vertex, edge and chain numbers, so a worker that plans a job itself finds
// the same chains the JobMaster deployed.
package plan
