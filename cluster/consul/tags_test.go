package consul_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stactor/stactor/cluster/consul"
)

// TestUpdateTags: a registration's tags are replaced (and cleared) in its
// members entry, the node stays healthy, and tags Consul cannot hold are
// refused without changing anything.
func TestUpdateTags(t *testing.T) {
	need(t)
	t.Parallel()
	cluster := newCluster(t)
	n := testNode(cluster, "n1")
	r := register(t, n)
	for _, tags := range []map[string]string{{"zone": "b", "rack": "7"}, {}} {
		if err := r.UpdateTags(context.Background(), tags); err != nil {
			t.Fatal(err)
		}
		want := map[string]string(nil)
		if len(tags) > 0 {
			want = tags
		}
		waitMembers(t, cluster, 10*time.Second, func(ms []consul.Member) error {
			if len(ms) != 1 || !ms[0].Healthy || !reflect.DeepEqual(ms[0].Tags, want) || ms[0].CPU != n.CPU {
				return fmt.Errorf("members %+v, want tags %v", ms, want)
			}
			return nil
		})
	}
	if err := r.UpdateTags(context.Background(), map[string]string{"a.b": "c"}); !errors.Is(err, consul.ErrBadTags) {
		t.Fatalf("a tag key with a dot: %v", err)
	}
	if len(r.Node().Tags) != 0 {
		t.Fatalf("a refused update changed the tags to %v", r.Node().Tags)
	}
}
