package kafka

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// connectAttempts and connectBackoff bound how long Resolve waits for a
// broker that does not answer before it says so.
const (
	connectAttempts = 3
	connectBackoff  = time.Second
	connectTimeout  = 5 * time.Second
)

// splitServers is bootstrap.servers as a list.
func splitServers(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no broker address given")
	}
	return out, nil
}

// newClient is a franz-go client for servers with the common options,
// kafka.config's and extra.
func newClient(servers []string, cc *clientConfig, extra ...kgo.Opt) (*kgo.Client, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(servers...), kgo.DialTimeout(connectTimeout)}
	if cc != nil {
		opts = append(opts, cc.opts...)
	}
	opts = append(opts, extra...)
	return kgo.NewClient(opts...)
}

// connect checks that a broker of servers answers, retrying a few times,
// and returns an admin client on it.
func connect(ctx context.Context, servers []string, cc *clientConfig) (*kgo.Client, *kadm.Client, error) {
	cl, err := newClient(servers, cc)
	if err != nil {
		return nil, nil, err
	}
	var last error
	for i := 0; i < connectAttempts; i++ {
		pctx, cancel := context.WithTimeout(ctx, connectTimeout)
		last = cl.Ping(pctx)
		cancel()
		if last == nil {
			return cl, kadm.NewClient(cl), nil
		}
		if ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(connectBackoff):
		}
	}
	cl.Close()
	return nil, nil, fmt.Errorf("no Kafka broker at %s answers (%d attempts): %w", strings.Join(servers, ","), connectAttempts, last)
}

// partitionRef is one partition of a topic.
type partitionRef struct {
	Topic     string `json:"t"`
	Partition int32  `json:"p"`
}

func (p partitionRef) String() string { return fmt.Sprintf("%s-%d", p.Topic, p.Partition) }

// listPartitions are the partitions of the named topics (each must
// exist), or of the topics pattern matches (internal topics excluded),
// sorted.
func listPartitions(ctx context.Context, adm *kadm.Client, topics []string, pattern *regexp.Regexp) ([]partitionRef, error) {
	var details kadm.TopicDetails
	var err error
	if pattern != nil {
		details, err = adm.ListTopics(ctx)
	} else {
		details, err = adm.ListTopics(ctx, topics...)
	}
	if err != nil {
		return nil, fmt.Errorf("listing topics: %w", err)
	}
	var out []partitionRef
	for name, d := range details {
		if pattern != nil && (d.IsInternal || !pattern.MatchString(name)) {
			continue
		}
		if errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
			return nil, fmt.Errorf("topic %q does not exist", name)
		}
		if d.Err != nil {
			return nil, fmt.Errorf("topic %q: %w", name, d.Err)
		}
		for p := range d.Partitions {
			out = append(out, partitionRef{name, p})
		}
	}
	if pattern == nil {
		for _, t := range topics {
			if _, ok := details[t]; !ok {
				return nil, fmt.Errorf("topic %q does not exist", t)
			}
		}
	}
	sortRefs(out)
	return out, nil
}

func sortRefs(refs []partitionRef) {
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].Topic != refs[j].Topic {
			return refs[i].Topic < refs[j].Topic
		}
		return refs[i].Partition < refs[j].Partition
	})
}
