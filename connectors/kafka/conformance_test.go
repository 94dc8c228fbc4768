package kafka_test

import (
	"fmt"
	"testing"

	"github.com/stactor/stactor/connectors/conformance"
	"github.com/stactor/stactor/connectors/kafka"
	"github.com/stactor/stactor/row"
)

func sourceBody(topic string, schema *row.Schema) string {
	return fmt.Sprintf("topic = %q\nbootstrap.servers = %q\nstart_mode = earliest\n%s", topic, kafka.Broker(), conformance.SchemaOption(schema))
}

// The source reads back, exactly, rows its own EXACTLY_ONCE sink wrote
// as JSON; the sink's committed rows read back with the source.
func TestConformance(t *testing.T) {
	t.Run("Source", func(t *testing.T) {
		conformance.RunSource(t, conformance.Source{
			Factory: kafka.SourceFactory,
			Types:   conformance.AllTypes(),
			Table: func(_ string, schema *row.Schema, rows [][]any) (string, error) {
				topic := kafka.NewTopic(t, 3)
				sink := fmt.Sprintf("topic = %q\nbootstrap.servers = %q\nsemantics = EXACTLY_ONCE", topic, kafka.Broker())
				if err := conformance.Commit(kafka.SinkFactory, sink, schema, rows); err != nil {
					return "", err
				}
				return sourceBody(topic, schema), nil
			},
			BadOptions: []conformance.BadOption{
				{Name: "NoTopic", Body: fmt.Sprintf("bootstrap.servers = %q", kafka.Broker()), Error: "topic"},
				{Name: "BadFormat", Body: fmt.Sprintf("topic = a\nbootstrap.servers = %q\nformat = avro", kafka.Broker()), Error: "format"},
			},
			DeadServer: &conformance.BadOption{Name: "DeadBroker", Body: "topic = a\nbootstrap.servers = \"127.0.0.1:1\"", Error: "no Kafka broker at 127.0.0.1:1 answers"},
		})
	})
	for _, sem := range []string{"EXACTLY_ONCE", "AT_LEAST_ONCE"} {
		t.Run("Sink"+sem, func(t *testing.T) {
			conformance.RunSink(t, conformance.Sink{
				Factory:     kafka.SinkFactory,
				Types:       conformance.AllTypes(),
				ExactlyOnce: sem == "EXACTLY_ONCE",
				Target: func(_ string, schema *row.Schema) (string, func() ([][]any, error), error) {
					topic := kafka.NewTopic(t, 3)
					body := fmt.Sprintf("topic = %q\nbootstrap.servers = %q\nsemantics = %s", topic, kafka.Broker(), sem)
					return body, func() ([][]any, error) { return conformance.ReadAll(kafka.SourceFactory, sourceBody(topic, schema)) }, nil
				},
				BadOptions: []conformance.BadOption{
					{Name: "BadSemantics", Body: fmt.Sprintf("topic = a\nbootstrap.servers = %q\nsemantics = TWICE", kafka.Broker()), Error: "semantics"},
				},
				DeadServer: &conformance.BadOption{Name: "DeadBroker", Body: "topic = a\nbootstrap.servers = \"127.0.0.1:1\"", Error: "no Kafka broker at 127.0.0.1:1 answers"},
			})
		})
	}
}
