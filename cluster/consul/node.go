package consul

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/consul/api"
)

// Node is what a stactor node tells the cluster about itself. It travels in
// the Consul service's metadata, so every field must fit there: tag keys are
// letters, digits, '_' and '-' (at most 64 metadata entries in all, values
// up to 512 bytes).
type Node struct {
	ID       string            // the Consul service ID: unique among the services of its agent
	Cluster  string            // the cluster's name; the service is stactor-<Cluster>
	Address  string            // protoactor remote, host:port
	Roles    []string          // e.g. "master", "worker"
	CPU      float64           // cores offered to slots
	MemoryMB int64             // memory offered to slots
	Tags     map[string]string // matched by a job's tag_filter
	HTTP     string            // the node's HTTP API, host:port; empty if none
}

// Member is a node as the cluster sees it. Healthy is true when every check
// of the service and of its Consul node passes; a member that stopped
// heartbeating stays listed, unhealthy, until it is deregistered.
type Member struct {
	Node
	Healthy bool
}

// ServiceName is the Consul service under which a cluster's nodes register.
func ServiceName(cluster string) string { return "stactor-" + cluster }

// CheckID is the ID of the TTL check Register gives a node. Campaign ties the
// leader session to it.
func CheckID(nodeID string) string { return "service:" + nodeID }

// Metadata keys of the service.
const (
	metaAddress  = "address"
	metaHTTP     = "http"
	metaRoles    = "roles"
	metaCPU      = "cpu"
	metaMemoryMB = "memory_mb"
	metaTag      = "tag_"
)

// ValidMetaKey reports whether Consul accepts s as a metadata key: in the
// manner of `^[A-Za-z0-9_-]{1,128}$`, 1 to 128 letters, digits, '_' and
// '-'. A loop rather than that regexp, which compiles its {1,128} into
// over 100 KB of program (1,700 allocations) at every process's start,
// also of processes that never register with Consul.
func ValidMetaKey(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// service builds the agent registration of n.
func (n Node) service(o options) (*api.AgentServiceRegistration, error) {
	if n.ID == "" || n.Cluster == "" {
		return nil, fmt.Errorf("consul: node needs an ID and a cluster (got %q, %q)", n.ID, n.Cluster)
	}
	host, portStr, err := net.SplitHostPort(n.Address)
	if err != nil {
		return nil, fmt.Errorf("consul: node %s: address %q: %w", n.ID, n.Address, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("consul: node %s: address %q: bad port", n.ID, n.Address)
	}
	for _, r := range n.Roles {
		if r == "" || strings.Contains(r, ",") {
			return nil, fmt.Errorf("consul: node %s: bad role %q", n.ID, r)
		}
	}
	meta := map[string]string{
		metaAddress:  n.Address,
		metaRoles:    strings.Join(n.Roles, ","),
		metaCPU:      strconv.FormatFloat(n.CPU, 'g', -1, 64),
		metaMemoryMB: strconv.FormatInt(n.MemoryMB, 10),
	}
	if n.HTTP != "" {
		meta[metaHTTP] = n.HTTP
	}
	for k, v := range n.Tags {
		key := metaTag + k
		if !ValidMetaKey(key) {
			return nil, fmt.Errorf("consul: node %s: tag key %q: only letters, digits, '_' and '-'", n.ID, k)
		}
		if len(v) > 512 {
			return nil, fmt.Errorf("consul: node %s: tag %q: value longer than 512 bytes", n.ID, k)
		}
		meta[key] = v
	}
	if len(meta) > 64 {
		return nil, fmt.Errorf("consul: node %s: %d tags, more than Consul's metadata holds", n.ID, len(n.Tags))
	}
	return &api.AgentServiceRegistration{
		ID:      n.ID,
		Name:    ServiceName(n.Cluster),
		Tags:    append([]string(nil), n.Roles...),
		Address: host,
		Port:    port,
		Meta:    meta,
		Check: &api.AgentServiceCheck{
			CheckID:                        CheckID(n.ID),
			Name:                           "stactor node heartbeat",
			TTL:                            o.ttl.String(),
			Status:                         api.HealthPassing,
			DeregisterCriticalServiceAfter: o.deregisterAfter.String(),
		},
	}, nil
}

// member reads a health entry back into a Member.
func member(cluster string, e *api.ServiceEntry) Member {
	s := e.Service
	m := Member{
		Node: Node{
			ID:      s.ID,
			Cluster: cluster,
			Address: s.Meta[metaAddress],
			HTTP:    s.Meta[metaHTTP],
		},
		Healthy: e.Checks.AggregatedStatus() == api.HealthPassing,
	}
	if m.Address == "" {
		m.Address = net.JoinHostPort(s.Address, strconv.Itoa(s.Port))
	}
	if r := s.Meta[metaRoles]; r != "" {
		m.Roles = strings.Split(r, ",")
	}
	m.CPU, _ = strconv.ParseFloat(s.Meta[metaCPU], 64)
	m.MemoryMB, _ = strconv.ParseInt(s.Meta[metaMemoryMB], 10, 64)
	for k, v := range s.Meta {
		if tag, ok := strings.CutPrefix(k, metaTag); ok {
			if m.Tags == nil {
				m.Tags = map[string]string{}
			}
			m.Tags[tag] = v
		}
	}
	return m
}

func sortMembers(ms []Member) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
}
