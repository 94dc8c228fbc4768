package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
)

// The metrics. Job metrics come from the leader only; every node has
// stactor_node_leader and the Go process metrics.
var (
	job  = []string{"job_id", "job_name"}
	jobP = []string{"job_id", "job_name", "pipeline"}
	jobV = []string{"job_id", "job_name", "vertex"}
	jobS = []string{"job_id", "job_name", "pipeline", "chain", "subtask"}

	descLeader          = desc("stactor_node_leader", "1 while this node leads the cluster (and serves the job metrics), else 0.")
	descJobs            = desc("stactor_jobs", "Jobs the cluster knows, by state.", "state")
	descRowsRead        = desc("stactor_job_rows_read_total", "Rows the job's sources have read (across restores).", job...)
	descRowsWritten     = desc("stactor_job_rows_written_total", "Rows the job's sinks have written (across restores).", job...)
	descBytesRead       = desc("stactor_job_bytes_read_total", "Bytes the job's sources have read.", job...)
	descBytesWritten    = desc("stactor_job_bytes_written_total", "Bytes the job's sinks have written.", job...)
	descJobState        = desc("stactor_job_state", "1 for the job's current state.", "job_id", "job_name", "state")
	descJobStart        = desc("stactor_job_start_time_seconds", "When the job was submitted, in Unix seconds.", job...)
	descJobEnd          = desc("stactor_job_end_time_seconds", "When the job ended, in Unix seconds (ended jobs only).", job...)
	descAttempt         = desc("stactor_job_pipeline_attempt", "The pipeline's attempt: how often it was restored.", jobP...)
	descWorkers         = desc("stactor_workers", "Workers the resource manager hands slots of.")
	descSlots           = desc("stactor_slots", "Slots of all workers.")
	descSlotsFree       = desc("stactor_slots_free", "Slots not handed out.")
	descWorkerSlots     = desc("stactor_worker_slots", "The worker's slots.", "worker")
	descWorkerSlotsUsed = desc("stactor_worker_slots_used", "The worker's slots handed out.", "worker")
	descCkptRetained    = desc("stactor_job_checkpoints_retained", "Completed checkpoints the storage keeps for the pipeline (running jobs).", jobP...)
	descCkptLatestID    = desc("stactor_job_checkpoint_latest_id", "Id of the pipeline's latest completed checkpoint (running jobs).", jobP...)
	descCkptLatestTime  = desc("stactor_job_checkpoint_latest_time_seconds", "When the pipeline's latest checkpoint completed, in Unix seconds (running jobs).", jobP...)
	descCkptLatestDur   = desc("stactor_job_checkpoint_latest_duration_seconds", "How long the pipeline's latest checkpoint took from trigger to completion (running jobs).", jobP...)
	descCkptLatestSize  = desc("stactor_job_checkpoint_latest_size_bytes", "State size of the pipeline's latest checkpoint (running jobs).", jobP...)

	// Per vertex, summed over its subtasks of the pipeline's current
	// attempt (they restart from zero when the pipeline is restored).
	descVertexRowsIn   = desc("stactor_vertex_rows_in_total", "Rows that entered the vertex: a source's reads, a transform's input, a sink's writes.", jobV...)
	descVertexRowsOut  = desc("stactor_vertex_rows_out_total", "Rows the vertex passed on: a source's reads, a transform's output (none for a sink).", jobV...)
	descVertexBytesIn  = desc("stactor_vertex_bytes_in_total", "Bytes a sink vertex wrote.", jobV...)
	descVertexBytesOut = desc("stactor_vertex_bytes_out_total", "Bytes a source vertex read.", jobV...)
	descVertexBPTime   = desc("stactor_vertex_backpressured_seconds_total", "Time the vertex's subtasks spent with an output held for lack of credit, summed over them.", jobV...)
	descVertexBP       = desc("stactor_vertex_backpressure_ratio", "The largest share among the vertex's subtasks of their last reporting interval spent with an output held for lack of credit (0..1; 0 for ended jobs).", jobV...)
	descVertexBusy     = desc("stactor_vertex_busy_ratio", "The largest share among the vertex's subtasks of their last reporting interval spent processing rows (Flink's busyTimeMsPerSecond / 1000).", jobV...)
	descVertexIdle     = desc("stactor_vertex_idle_ratio", "The largest share among the vertex's subtasks of their last reporting interval spent waiting for input (Flink's idleTimeMsPerSecond / 1000).", jobV...)

	// Per pipeline and subtask of running jobs, from the same JobMetrics.
	descCkptCompleted = desc("stactor_job_pipeline_checkpoints_completed", "Checkpoints the pipeline completed under its current JobMaster (running jobs).", jobP...)
	descCkptFailed    = desc("stactor_job_pipeline_checkpoints_failed", "Checkpoints the pipeline aborted (timed out or refused) under its current JobMaster (running jobs).", jobP...)
	descReadLimit     = desc("stactor_job_pipeline_read_limit_rows_per_second", "read_limit.adaptive: rows per second the pipeline's sources may read now, in all; 0: not limited (running jobs).", jobP...)
	descSubBusy       = desc("stactor_subtask_busy_ratio", "Share of the subtask's last reporting interval spent processing rows.", jobS...)
	descSubIdle       = desc("stactor_subtask_idle_ratio", "Share of the subtask's last reporting interval spent waiting for input.", jobS...)
	descSubBP         = desc("stactor_subtask_backpressure_ratio", "Share of the subtask's last reporting interval spent with an output held for lack of credit.", jobS...)
	descSubInQueue    = desc("stactor_subtask_input_queue_batches", "Input batches the subtask has set aside (waiting for credit downstream or a checkpoint's markers).", jobS...)
	descSubOutQueue   = desc("stactor_subtask_output_queue_batches", "Output batches the subtask holds for lack of credit.", jobS...)
	descSubInFlight   = desc("stactor_subtask_in_flight_batches", "Batches the subtask sent that no credit has acknowledged yet.", jobS...)
)

// descs are the metrics desc made, for Describe.
var descs []*prometheus.Desc

func desc(name, help string, labels ...string) *prometheus.Desc {
	d := prometheus.NewDesc(name, help, labels, nil)
	descs = append(descs, d)
	return d
}

// collector asks the coordinator at each scrape; it keeps nothing.
type collector struct{ h *Handler }

var _ prometheus.Collector = collector{}

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range descs {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	h := c.h
	leading := h.lead == nil || h.lead.Leading()
	emit(ch, descLeader, prometheus.GaugeValue, bool01(leading))
	if !leading {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if workers, err := h.coord.Workers(ctx); err != nil {
		ch <- prometheus.NewInvalidMetric(descWorkers, err)
	} else {
		total, free := 0, 0
		for _, w := range workers {
			total += w.Slots
			free += w.Slots - w.UsedSlots
			emit(ch, descWorkerSlots, prometheus.GaugeValue, float64(w.Slots), w.ID)
			emit(ch, descWorkerSlotsUsed, prometheus.GaugeValue, float64(w.UsedSlots), w.ID)
		}
		emit(ch, descWorkers, prometheus.GaugeValue, float64(len(workers)))
		emit(ch, descSlots, prometheus.GaugeValue, float64(total))
		emit(ch, descSlotsFree, prometheus.GaugeValue, float64(free))
	}
	all, err := h.jobs(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(descJobs, err)
		return
	}
	byState := map[string]int{}
	for _, k := range all {
		st := k.status
		byState[st.State]++
		labels := []string{st.JobId, st.Name}
		emit(ch, descJobState, prometheus.GaugeValue, 1, st.JobId, st.Name, st.State)
		if st.StartUnixMs > 0 {
			emit(ch, descJobStart, prometheus.GaugeValue, float64(st.StartUnixMs)/1000, labels...)
		}
		if st.EndUnixMs > 0 {
			emit(ch, descJobEnd, prometheus.GaugeValue, float64(st.EndUnixMs)/1000, labels...)
		}
		for _, p := range st.Pipelines {
			emit(ch, descAttempt, prometheus.GaugeValue, float64(p.Attempt), st.JobId, st.Name, strconv.Itoa(int(p.Id)))
		}
		emit(ch, descRowsRead, prometheus.CounterValue, float64(st.ReadRows), labels...)
		emit(ch, descRowsWritten, prometheus.CounterValue, float64(st.WriteRows), labels...)
		emit(ch, descBytesRead, prometheus.CounterValue, float64(st.ReadBytes), labels...)
		emit(ch, descBytesWritten, prometheus.CounterValue, float64(st.WriteBytes), labels...)
		if !state.JobEnded(st.State) {
			c.checkpoints(ch, st)
		}
		c.vertices(ctx, ch, st)
	}
	for s, n := range byState {
		emit(ch, descJobs, prometheus.GaugeValue, float64(n), s)
	}
}

// checkpoints emits the latest checkpoint of each pipeline of a running
// job. Ended jobs are left out: their history does not change, and reading
// it at every scrape would cost a storage listing per job ever run.
func (c collector) checkpoints(ch chan<- prometheus.Metric, st *messages.JobStatus) {
	cps, err := c.h.store.List(st.JobId)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(descCkptLatestID, fmt.Errorf("checkpoints of job %s: %w", st.JobId, err))
		return
	}
	latest := map[int32]*messages.CompletedCheckpoint{}
	retained := map[int32]int{}
	for _, cp := range cps {
		retained[cp.Pipeline]++
		if l := latest[cp.Pipeline]; l == nil || cp.Id > l.Id {
			latest[cp.Pipeline] = cp
		}
	}
	for p, cp := range latest {
		labels := []string{st.JobId, st.Name, strconv.Itoa(int(p))}
		emit(ch, descCkptRetained, prometheus.GaugeValue, float64(retained[p]), labels...)
		emit(ch, descCkptLatestID, prometheus.GaugeValue, float64(cp.Id), labels...)
		emit(ch, descCkptLatestTime, prometheus.GaugeValue, float64(cp.CompleteUnixMs)/1000, labels...)
		emit(ch, descCkptLatestDur, prometheus.GaugeValue, float64(cp.CompleteUnixMs-cp.TriggerUnixMs)/1000, labels...)
		emit(ch, descCkptLatestSize, prometheus.GaugeValue, float64(cp.SizeBytes), labels...)
	}
}

// vertices emits the per-vertex figures of a job the coordinator runs or
// ran (an ended job's are kept by the coordinator: asking costs no
// JobMaster).
func (c collector) vertices(ctx context.Context, ch chan<- prometheus.Metric, st *messages.JobStatus) {
	m, err := c.h.coord.Metrics(ctx, st.JobId)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(descVertexRowsIn, fmt.Errorf("vertex metrics of job %s: %w", st.JobId, err))
		return
	}
	for _, v := range m.Vertices {
		labels := []string{st.JobId, st.Name, v.Name}
		emit(ch, descVertexRowsIn, prometheus.CounterValue, float64(v.RowsIn), labels...)
		emit(ch, descVertexRowsOut, prometheus.CounterValue, float64(v.RowsOut), labels...)
		switch v.Type {
		case "source":
			emit(ch, descVertexBytesOut, prometheus.CounterValue, float64(v.BytesOut), labels...)
		case "sink":
			emit(ch, descVertexBytesIn, prometheus.CounterValue, float64(v.BytesIn), labels...)
		}
		emit(ch, descVertexBPTime, prometheus.CounterValue, float64(v.BackpressuredMs)/1000, labels...)
		emit(ch, descVertexBP, prometheus.GaugeValue, v.BackpressuredMsPerSecond/1000, labels...)
		emit(ch, descVertexBusy, prometheus.GaugeValue, v.BusyMsPerSecond/1000, labels...)
		emit(ch, descVertexIdle, prometheus.GaugeValue, v.IdleMsPerSecond/1000, labels...)
	}
	if state.JobEnded(st.State) {
		return
	}
	for _, p := range m.Pipelines {
		emit(ch, descCkptCompleted, prometheus.GaugeValue, float64(p.CheckpointsCompleted), st.JobId, st.Name, strconv.Itoa(int(p.Pipeline)))
		emit(ch, descCkptFailed, prometheus.GaugeValue, float64(p.CheckpointsFailed), st.JobId, st.Name, strconv.Itoa(int(p.Pipeline)))
		emit(ch, descReadLimit, prometheus.GaugeValue, p.ReadLimitRowsPerSecond, st.JobId, st.Name, strconv.Itoa(int(p.Pipeline)))
	}
	for _, s := range m.Subtasks {
		labels := []string{st.JobId, st.Name, strconv.Itoa(int(s.Pipeline)), strconv.Itoa(int(s.Chain)), strconv.Itoa(int(s.Subtask))}
		emit(ch, descSubBusy, prometheus.GaugeValue, s.BusyMsPerSecond/1000, labels...)
		emit(ch, descSubIdle, prometheus.GaugeValue, s.IdleMsPerSecond/1000, labels...)
		emit(ch, descSubBP, prometheus.GaugeValue, s.BackpressuredMsPerSecond/1000, labels...)
		emit(ch, descSubInQueue, prometheus.GaugeValue, float64(s.InputQueue), labels...)
		emit(ch, descSubOutQueue, prometheus.GaugeValue, float64(s.OutputQueue), labels...)
		emit(ch, descSubInFlight, prometheus.GaugeValue, float64(s.InFlight), labels...)
	}
}

// emit sends one metric; label values that Prometheus refuses (not UTF-8:
// a job name is the user's) become an invalid metric, which the handler
// logs and skips.
func emit(ch chan<- prometheus.Metric, d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	ch <- m
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// metricsHandler serves the handler's collector and the Go process
// metrics from a registry of its own. A metric that cannot be collected
// is logged and left out; the others are served.
func (h *Handler) metricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{h: h}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: promLog{h.log}, ErrorHandling: promhttp.ContinueOnError})
}

// promLog is promhttp's error log on zerolog.
type promLog struct{ log zerolog.Logger }

func (l promLog) Println(v ...any) { l.log.Warn().Msg(fmt.Sprint(v...)) }
