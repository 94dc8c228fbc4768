// Package consul is stactor's membership and leadership layer on Consul
// (DESIGN.md §6–§8).
//
// Each `stactor node` registers itself as an instance of the Consul service
// stactor-<cluster> with a TTL health check that it passes from a heartbeat
// goroutine (Register). Everyone sees the nodes, healthy and failing,
// through the health endpoint (Members, Watch). One node at a time leads:
// it holds the KV lock stactor/<cluster>/leader with a session tied to its
// own service check, so a dead or paused leader loses the lock within
// seconds and its lock's ModifyIndex is the fencing term (Campaign, Leader,
// CurrentLeader). The leader keeps the job registry and the job history in
// KV under stactor/<cluster>/jobs/, written with check-and-set so a leader
// that was replaced cannot overwrite what its successor wrote, and each
// job's resolved plan, which can outgrow a KV value, in parts under
// stactor/<cluster>/plans/ (JobRegistry).
//
// Every function takes a *api.Client for the node's local agent and a
// context that bounds the call (and, for Register and Campaign, the life of
// what they start). Errors from Consul are wrapped with %w; the sentinel
// errors below are for control flow.
//
// The package is named consul (the Consul client package is named api, so
// the two do not clash).
package consul

import "errors"

// ErrConflict is returned by a JobRegistry write whose check-and-set index
// no longer matches the stored record: someone (usually a newer leader)
// wrote it since it was read. Re-read and decide again; never retry blindly.
var ErrConflict = errors.New("consul: check-and-set conflict")

// ErrNotFound is returned by JobRegistry.GetJob for an unknown job.
var ErrNotFound = errors.New("consul: not found")

// ErrNoLeader is returned by CurrentLeader when nobody holds the lock.
var ErrNoLeader = errors.New("consul: no leader")

// ErrSessionInvalidated is returned by Campaign when its session was
// invalidated while it waited (the node's own check turned critical or the
// node was deregistered). The node is unhealthy; campaign again once it
// passes its check again.
var ErrSessionInvalidated = errors.New("consul: session invalidated")
