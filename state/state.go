// Package state names the states of jobs, pipelines and subtasks, as
// SeaTunnel's engine names them (JobStatus, PipelineStatus and
// SeaTunnelTaskState), and which of them are final.
package state

// Job states.
const (
	JobCreated        = "CREATED"
	JobInitializing   = "INITIALIZING" // being resolved (DESIGN §2)
	JobPending        = "PENDING"
	JobScheduled      = "SCHEDULED"
	JobRunning        = "RUNNING"
	JobFailing        = "FAILING"
	JobDoingSavepoint = "DOING_SAVEPOINT"
	JobFailed         = "FAILED"
	JobCanceling      = "CANCELING"
	JobCanceled       = "CANCELED"
	JobFinished       = "FINISHED"
	JobSavepointDone  = "SAVEPOINT_DONE"
)

// Pipeline states.
const (
	PipelineCreated   = "CREATED"
	PipelineDeploying = "DEPLOYING"
	PipelineRunning   = "RUNNING"
	PipelineFailing   = "FAILING"
	PipelineFailed    = "FAILED"
	PipelineCanceling = "CANCELING"
	PipelineCanceled  = "CANCELED"
	PipelineFinished  = "FINISHED"
)

// Subtask states (SeaTunnelTaskState).
const (
	TaskCreated        = "CREATED"
	TaskInit           = "INIT"
	TaskWaitingRestore = "WAITING_RESTORE"
	TaskReadyStart     = "READY_START"
	TaskStarting       = "STARTING"
	TaskRunning        = "RUNNING"
	TaskPrepareClose   = "PREPARE_CLOSE"
	TaskClosed         = "CLOSED"
	TaskCancelling     = "CANCELLING"
	TaskCanceled       = "CANCELED"
	TaskFailed         = "FAILED"
)

// JobEnded tells whether a job state is final.
func JobEnded(s string) bool {
	switch s {
	case JobFailed, JobCanceled, JobFinished, JobSavepointDone:
		return true
	}
	return false
}
