// Package httpapi is the HTTP server of the node that leads a cluster
// (DESIGN §9): a REST API in the spirit of SeaTunnel's REST API v2
// (overview, running-jobs, job-info and its old name running-job,
// finished-jobs, submit-job and submit-jobs, stop-job and stop-jobs,
// system-monitoring-information, update-tags; and ours, job-checkpoints
// with each checkpoint's diagnosis and restore-preview), Prometheus
// /metrics, and a small web page at / that polls the API.
//
// /update-tags is answered by the node asked, leader or not (it changes
// that node's worker tags, through its Tagger), unlike the rest of the
// API. /submit-jobs checks every job before it submits any, then stops at
// the first refusal, naming the jobs submitted before it. SeaTunnel's JSON
// job form (plugin lists with plugin_name) is rewritten into the block
// form the job parser reads (jsonjob.go). The same handler serves a local
// `stactor run --http`.
//
// The handler holds no job state of its own. It asks the leader's
// CoordinatorService and ResourceManager by message (Coordinator, with
// NewActorCoordinator as the real one), reads checkpoint history from the
// checkpoint storage (Checkpoints), and, in a cluster, the nodes from
// Consul's membership (Members). Jobs that ended under an earlier leader
// come from the coordinator too: it answers from the job registry in
// Consul KV for jobs it does not run.
//
// Every node may run the handler. A node that does not lead (Leadership)
// answers API requests with a 307 redirect to the leader's HTTP address,
// or 503 when no leader is known; its /metrics shows only whether it
// leads, so that scraping every node counts each job once.
//
// The API has no authentication: like the cluster's own protoactor and
// Consul ports, it belongs on a trusted network.
package httpapi
