package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage"
)

// maxJobFile bounds a submitted job file: it travels to every worker in
// each DeployTask, under gRPC's 4 MiB message limit.
const maxJobFile = 1 << 20

// validJobID is what a job id given to the API may hold: what Consul
// takes as a metadata key (`^[A-Za-z0-9_-]{1,128}$`). It becomes part of
// NATS subjects and Consul keys, where '.', '*', '>', '/' and spaces mean
// something else.
func validJobID(id string) bool { return consul.ValidMetaKey(id) }

// submitted is /submit-job's answer.
type submitted struct {
	JobID   string `json:"jobId"`
	JobName string `json:"jobName"`
	// Warnings and Guarantees (per pipeline: what the job as written
	// guarantees and which connector limits it) are stactor's additions.
	Warnings   []string `json:"warnings,omitempty"`
	Guarantees []string `json:"guarantees,omitempty"`
}

// submitJob runs the job file in the body. Query parameters: jobId
// (default: generated), jobName (overrides env's job.name),
// isStartWithSavePoint (continue job jobId from its latest savepoint or
// checkpoint, as `stactor restore`), variable=name=value (repeatable, as
// `-i`), fileName (names the file in error messages).
func (h *Handler) submitJob(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	restore := false
	if v := q.Get("isStartWithSavePoint"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			fail(w, http.StatusBadRequest, "isStartWithSavePoint=%q: want true or false", v)
			return
		}
		restore = b
	}
	vars, err := parseVars(q["variable"])
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	id := q.Get("jobId")
	switch {
	case id == "" && restore:
		fail(w, http.StatusBadRequest, "isStartWithSavePoint=true needs the jobId of the job to continue")
		return
	case id == "":
		id = strconv.FormatInt(time.Now().UnixNano()/1000, 10)
	case !validJobID(id):
		fail(w, http.StatusBadRequest, "jobId %q: use 1 to 128 letters, digits, '_' and '-'", id)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJobFile))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		fail(w, http.StatusRequestEntityTooLarge, "the job file is larger than %d bytes", maxJobFile)
		return
	case err != nil:
		fail(w, http.StatusBadRequest, "reading the job file: %v", err)
		return
	case len(bytes.TrimSpace(body)) == 0:
		fail(w, http.StatusBadRequest, "the request body is empty: send the job file (HOCON or JSON) as the body")
		return
	}

	res, ferr := h.submit(r.Context(), submitArgs{id: id, name: q.Get("jobName"), restore: restore, vars: vars, file: q.Get("fileName"), body: body})
	if ferr != nil {
		ferr.write(w)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// submitArgs is one job to submit: /submit-job's query and body, or one
// element of /submit-jobs.
type submitArgs struct {
	id, name, file string
	restore        bool
	vars           map[string]string
	body           []byte
}

// apiError is an answer that is not 200: a status and message, or (err)
// a failure of the coordinator, the registry or the storage (failErr).
type apiError struct {
	code int
	msg  string
	err  error
}

func (e *apiError) write(w http.ResponseWriter) {
	if e.err != nil {
		failErr(w, e.err)
		return
	}
	fail(w, e.code, "%s", e.msg)
}

func (e *apiError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return e.msg
}

// submit submits one job whose id is checked already.
func (h *Handler) submit(ctx context.Context, a submitArgs) (submitted, *apiError) {
	id := a.id
	// The coordinator refuses a known id too, but in the same words as a
	// bad file; asking first tells the two apart (409 and 400).
	if k, err := h.job(ctx, id); err != nil {
		return submitted{}, &apiError{err: err}
	} else if k != nil && (!a.restore || !state.JobEnded(k.status.State)) {
		return submitted{}, &apiError{code: http.StatusConflict, msg: fmt.Sprintf("job %s exists already (%s)", id, k.status.State)}
	} else if k == nil && a.restore {
		// As stactor run --restore: continuing a job nobody ran would
		// start a new one under its id.
		if _, err := h.store.LoadJob(id); errors.Is(err, storage.ErrNotFound) {
			return submitted{}, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("isStartWithSavePoint=true: no job %s to continue", id)}
		} else if err != nil {
			return submitted{}, &apiError{err: err}
		}
	}
	// This handler is the job's submitting client (DESIGN §2): it parses
	// the text, with the request's variables only.
	root, err := config.ParseUntrusted(a.file, seaTunnelJSON(a.body), a.vars)
	if err == nil {
		_, err = config.FromTree(a.file, root)
	}
	if err != nil {
		return submitted{}, &apiError{code: http.StatusBadRequest, msg: err.Error()}
	}
	reply, err := h.coord.Submit(ctx, &messages.SubmitJob{JobId: id, File: a.file, Tree: config.EncodeTree(root), Vars: a.vars,
		Name: a.name, Restore: a.restore})
	if err != nil {
		return submitted{}, &apiError{err: err}
	}
	if reply.Error != "" {
		return submitted{}, &apiError{code: http.StatusBadRequest, msg: reply.Error}
	}
	name := a.name
	if st, err := h.coord.Status(ctx, id); err == nil && st.Name != "" {
		name = st.Name
	}
	return submitted{JobID: id, JobName: name, Warnings: reply.Warnings, Guarantees: reply.Guarantees}, nil
}

// parseVars reads variable=name=value parameters.
func parseVars(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	vars := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("variable=%q: want variable=name=value", kv)
		}
		vars[k] = v
	}
	return vars, nil
}

// stopRequest is /stop-job's body. SeaTunnel's job ids are numbers; ours
// are strings: both are taken.
type stopRequest struct {
	JobID               any  `json:"jobId"`
	IsStopWithSavePoint bool `json:"isStopWithSavePoint"`
}

// stopJob cancels a job, or with isStopWithSavePoint takes a savepoint and
// stops it (SAVEPOINT_DONE). It answers once the request is sent; the job
// ends a little later (poll /job-info).
func (h *Handler) stopJob(w http.ResponseWriter, r *http.Request) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.UseNumber()
	var req stopRequest
	if err := dec.Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, "the body must be JSON {\"jobId\": ..., \"isStopWithSavePoint\": false}: %v", err)
		return
	}
	var id string
	switch v := req.JobID.(type) {
	case string:
		id = v
	case json.Number:
		id = v.String()
	}
	if id == "" {
		fail(w, http.StatusBadRequest, "the body has no jobId (a string or a number)")
		return
	}
	ctx := r.Context()
	k := h.findJob(w, r, id)
	switch {
	case k == nil:
		return
	case state.JobEnded(k.status.State):
		fail(w, http.StatusConflict, "job %s has ended already (%s)", id, k.status.State)
		return
	}
	var err error
	if req.IsStopWithSavePoint {
		err = h.coord.Savepoint(ctx, id)
	} else {
		err = h.coord.Cancel(ctx, id)
	}
	if err != nil {
		failErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"jobId": id})
}
