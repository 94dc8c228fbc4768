package httpapi

import (
	"net/http"

	"github.com/stactor/stactor/resources"
	"github.com/stactor/stactor/state"
)

// overviewInfo is /overview's answer: SeaTunnel's fields (as numbers
// rather than SeaTunnel's strings), plus the savepointed jobs, the leader
// and, in a cluster, the nodes.
type overviewInfo struct {
	ProjectVersion string `json:"projectVersion"`
	Leader         string `json:"leader,omitempty"`
	// TotalSlot, UnassignedSlot and Works count the workers whose tags
	// match the query's tag=value parameters (all without any).
	TotalSlot         int          `json:"totalSlot"`
	UnassignedSlot    int          `json:"unassignedSlot"`
	Works             int          `json:"works"`
	RunningJobs       int          `json:"runningJobs"`
	FinishedJobs      int          `json:"finishedJobs"`
	FailedJobs        int          `json:"failedJobs"`
	CancelledJobs     int          `json:"cancelledJobs"`
	SavepointDoneJobs int          `json:"savepointDoneJobs"`
	Workers           []workerInfo `json:"workers"`
	Nodes             []nodeInfo   `json:"nodes,omitempty"`
}

type workerInfo struct {
	WorkerID  string            `json:"workerId"`
	Tags      map[string]string `json:"tags,omitempty"`
	Slots     int               `json:"slots"`
	UsedSlots int               `json:"usedSlots"`
}

// nodeInfo is a node as Consul sees it.
type nodeInfo struct {
	NodeID   string            `json:"nodeId"`
	Address  string            `json:"address"`
	HTTP     string            `json:"http,omitempty"`
	Roles    []string          `json:"roles"`
	CPU      float64           `json:"cpu"`
	MemoryMB int64             `json:"memoryMb"`
	Tags     map[string]string `json:"tags,omitempty"`
	Healthy  bool              `json:"healthy"`
}

func (h *Handler) overview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	filter := map[string]string{}
	for k, v := range r.URL.Query() {
		filter[k] = v[len(v)-1]
	}
	workers, err := h.coord.Workers(ctx)
	if err != nil {
		failErr(w, err)
		return
	}
	all, err := h.jobs(ctx)
	if err != nil {
		failErr(w, err)
		return
	}
	o := overviewInfo{ProjectVersion: h.version, Leader: h.nodeID, Workers: []workerInfo{}}
	for _, wk := range workers {
		if !resources.Matches(wk.Tags, filter) {
			continue
		}
		o.Works++
		o.TotalSlot += wk.Slots
		o.UnassignedSlot += wk.Slots - wk.UsedSlots
		o.Workers = append(o.Workers, workerInfo{WorkerID: wk.ID, Tags: wk.Tags, Slots: wk.Slots, UsedSlots: wk.UsedSlots})
	}
	for _, k := range all {
		switch k.status.State {
		case state.JobFinished:
			o.FinishedJobs++
		case state.JobFailed:
			o.FailedJobs++
		case state.JobCanceled:
			o.CancelledJobs++
		case state.JobSavepointDone:
			o.SavepointDoneJobs++
		default:
			o.RunningJobs++
		}
	}
	if h.members != nil {
		ms, err := h.members(ctx)
		if err != nil {
			h.log.Warn().Err(err).Msg("listing the cluster's nodes")
		}
		for _, m := range ms {
			o.Nodes = append(o.Nodes, nodeInfo{NodeID: m.ID, Address: m.Address, HTTP: m.HTTP, Roles: m.Roles,
				CPU: m.CPU, MemoryMB: m.MemoryMB, Tags: m.Tags, Healthy: m.Healthy})
		}
	}
	writeJSON(w, http.StatusOK, o)
}
