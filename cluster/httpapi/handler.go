package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/rs/zerolog"
)

// Handler serves the API, /metrics and the web page. Build it with New.
type Handler struct {
	coord   Coordinator
	store   Checkpoints
	members Members    // nil: /overview lists no nodes
	lead    Leadership // nil: this node always leads
	version string
	nodeID  string
	log     zerolog.Logger
	dags    *dagCache
	auth    Auth
	api     *http.ServeMux
	metrics http.Handler
	tagger  Tagger // nil: no /update-tags here
}

// Option configures a Handler.
type Option func(*Handler)

// WithMembers lists the cluster's nodes in /overview.
func WithMembers(m Members) Option { return func(x *Handler) { x.members = m } }

// WithLeadership makes the handler serve the API only while its node
// leads, and redirect to the leader otherwise.
func WithLeadership(l Leadership) Option { return func(x *Handler) { x.lead = l } }

// WithVersion is the version /overview reports (projectVersion).
func WithVersion(v string) Option { return func(x *Handler) { x.version = v } }

// WithNodeID is the id of the handler's node, reported as the leader by
// /overview.
func WithNodeID(id string) Option { return func(x *Handler) { x.nodeID = id } }

// WithLogger logs the handler's failures (metrics that could not be
// collected, DAGs that could not be planned).
func WithLogger(l zerolog.Logger) Option { return func(x *Handler) { x.log = l } }

// New is the handler of the coordinator c, with checkpoint history from
// store.
func New(c Coordinator, store Checkpoints, opts ...Option) *Handler {
	h := &Handler{coord: c, store: store, log: zerolog.Nop(), version: "dev"}
	for _, o := range opts {
		o(h)
	}
	h.dags = newDagCache(store, h.log)
	h.metrics = h.metricsHandler()
	h.api = http.NewServeMux()
	h.route("GET", "/overview", h.overview)
	h.route("GET", "/running-jobs", h.runningJobs)
	h.route("GET", "/job-info/{jobId}", h.jobInfo)
	h.route("GET", "/finished-jobs", h.finishedJobs)
	h.route("GET", "/finished-jobs/{state}", h.finishedJobs)
	h.route("GET", "/job-checkpoints/{jobId}", h.jobCheckpoints)
	h.route("POST", "/submit-job", h.submitJob)
	h.route("POST", "/stop-job", h.stopJob)
	h.route("GET", "/running-job/{jobId}", h.jobInfo) // SeaTunnel's deprecated name of /job-info
	h.route("POST", "/submit-jobs", h.submitJobs)
	h.route("POST", "/stop-jobs", h.stopJobs)
	h.route("GET", "/system-monitoring-information", h.systemMonitoring)
	h.route("POST", "/update-tags", h.updateTags)
	h.api.HandleFunc("GET /restore-preview/{jobId}", h.restorePreview)
	h.api.HandleFunc("POST /restore-preview/{jobId}", h.restorePreview)
	h.route("GET", "/{$}", servePage)
	h.api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	})
	return h
}

// route registers fn for method (GET also answers HEAD) on pattern; other
// methods get 405 with the JSON error.
func (h *Handler) route(method, pattern string, fn http.HandlerFunc) {
	h.api.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && !(method == "GET" && r.Method == "HEAD") {
			w.Header().Set("Allow", method)
			fail(w, http.StatusMethodNotAllowed, "%s %s: use %s", r.Method, r.URL.Path, method)
			return
		}
		fn(w, r)
	})
}

// ServeHTTP serves /metrics on every node, and everything else on the
// leader only: other nodes redirect there.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.authorize(w, r) {
		return
	}
	if r.URL.Path == "/metrics" {
		h.metrics.ServeHTTP(w, r)
		return
	}
	if r.URL.Path == "/update-tags" {
		h.api.ServeHTTP(w, r) // this node's own tags, leader or not
		return
	}
	if h.lead != nil && !h.lead.Leading() {
		h.redirect(w, r)
		return
	}
	h.api.ServeHTTP(w, r)
}

// redirect sends the client to the same URL on the leader (307 keeps the
// method and body of a POST), or answers 503 when there is none to send
// it to.
func (h *Handler) redirect(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	addr, err := h.lead.LeaderHTTP(ctx)
	if err != nil {
		w.Header().Set("Retry-After", "1")
		fail(w, http.StatusServiceUnavailable, "this node does not lead the cluster, and no leader to redirect to: %v", err)
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https" // the cluster's nodes serve alike
	}
	u := url.URL{Scheme: scheme, Host: addr, Path: r.URL.Path, RawQuery: r.URL.RawQuery}
	http.Redirect(w, r, u.String(), http.StatusTemporaryRedirect)
}

// failure is the body of every error answer, as SeaTunnel's REST API has
// it.
type failure struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away; nothing to tell it
}

func fail(w http.ResponseWriter, code int, format string, args ...any) {
	writeJSON(w, code, failure{Status: "fail", Message: fmt.Sprintf(format, args...)})
}

// failErr answers an error of the coordinator, the registry or the
// storage: 503 when the coordinator is not available here, 500 otherwise.
func failErr(w http.ResponseWriter, err error) {
	if errors.Is(err, ErrUnavailable) {
		w.Header().Set("Retry-After", "1")
		fail(w, http.StatusServiceUnavailable, "%v", err)
		return
	}
	fail(w, http.StatusInternalServerError, "%v", err)
}
