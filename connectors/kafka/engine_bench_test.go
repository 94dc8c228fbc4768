package kafka_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	_ "github.com/stactor/stactor/connectors/console"
	"github.com/stactor/stactor/connectors/kafka"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/state"
	"github.com/stactor/stactor/storage/localfile"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkEngineKafkaToConsole runs a BATCH Kafka → Console job of b.N
// records on an in-process engine: the source's cost inside the engine.
func BenchmarkEngineKafkaToConsole(b *testing.B) {
	in := kafka.NewTopic(b, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafka.Broker()), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < b.N; i++ {
		cl.Produce(context.Background(), &kgo.Record{Topic: in, Key: []byte(strconv.Itoa(i)), Value: []byte(`{"id":` + strconv.Itoa(i) + `,"name":"name-` + strconv.Itoa(i) + `"}`)}, nil)
	}
	if err := cl.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	cfg := engine.DefaultConfig()
	store, err := localfile.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	cfg.Store = store
	e, err := engine.Start(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Stop()
	job := fmt.Sprintf(`env { job.mode = "BATCH", parallelism = 2 }
source { Kafka { topic = %q, bootstrap.servers = %q, start_mode = earliest, schema = { fields { id = bigint, name = string } } } }
sink { Console { log.print.data = false } }`, in, kafka.Broker())
	b.ResetTimer()
	m, err := engine.JobFromText("bench", "bench.conf", []byte(job), nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := e.Submit(m); err != nil {
		b.Fatal(err)
	}
	st, err := e.Wait("bench", 10*time.Minute)
	if err != nil || st.State != state.JobFinished {
		b.Fatalf("job: %v %v %s", err, st.State, st.Error)
	}
	if st.WriteRows != int64(b.N) {
		b.Fatalf("wrote %d of %d", st.WriteRows, b.N)
	}
}
