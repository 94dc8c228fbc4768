package kafka

import (
	"crypto/tls"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// clientConfig is kafka.config translated for franz-go: the options that
// go to every client, and the properties the connector itself reads.
type clientConfig struct {
	opts []kgo.Opt
	// read by the connector
	readUncommitted bool   // isolation.level=read_uncommitted
	offsetReset     string // auto.offset.reset: where group_offsets starts without a committed offset
	maxPollRecords  int    // max.poll.records: rows per poll at most
	txnTimeout      time.Duration
	acks            string
}

// kafkaProp is one Kafka client property franz-go has: apply checks and
// applies its value. producer/consumer say which clients it belongs to;
// a property of the other kind is an error, as in the Java client's
// "unknown config" warning made strict.
type kafkaProp struct {
	producer, consumer bool
	apply              func(c *clientConfig, v string) error
}

func msProp(producer, consumer bool, set func(c *clientConfig, d time.Duration)) kafkaProp {
	return kafkaProp{producer, consumer, func(c *clientConfig, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("expected milliseconds, got %q", v)
		}
		set(c, time.Duration(n)*time.Millisecond)
		return nil
	}}
}

func intProp(producer, consumer bool, set func(c *clientConfig, n int32)) kafkaProp {
	return kafkaProp{producer, consumer, func(c *clientConfig, v string) error {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 0 {
			return fmt.Errorf("expected a non-negative whole number, got %q", v)
		}
		set(c, int32(n))
		return nil
	}}
}

// ignored is a property that has no meaning for franz-go but whose usual
// value is what stactor does anyway (a Java (de)serializer of bytes).
func ignored(producer, consumer bool, allowed ...string) kafkaProp {
	return kafkaProp{producer, consumer, func(_ *clientConfig, v string) error {
		for _, a := range allowed {
			if v == a {
				return nil
			}
		}
		return fmt.Errorf("only %s is supported (records are read and written as bytes)", strings.Join(allowed, " or "))
	}}
}

var props = map[string]kafkaProp{
	"client.id":                          {true, true, func(c *clientConfig, v string) error { c.opts = append(c.opts, kgo.ClientID(v)); return nil }},
	"client.rack":                        {false, true, func(c *clientConfig, v string) error { c.opts = append(c.opts, kgo.Rack(v)); return nil }},
	"request.timeout.ms":                 msProp(true, true, func(c *clientConfig, d time.Duration) { c.opts = append(c.opts, kgo.ProduceRequestTimeout(d)) }),
	"metadata.max.age.ms":                msProp(true, true, func(c *clientConfig, d time.Duration) { c.opts = append(c.opts, kgo.MetadataMaxAge(d)) }),
	"connections.max.idle.ms":            msProp(true, true, func(c *clientConfig, d time.Duration) { c.opts = append(c.opts, kgo.ConnIdleTimeout(d)) }),
	"socket.connection.setup.timeout.ms": msProp(true, true, func(c *clientConfig, d time.Duration) { c.opts = append(c.opts, kgo.DialTimeout(d)) }),
	"retry.backoff.ms": msProp(true, true, func(c *clientConfig, d time.Duration) {
		c.opts = append(c.opts, kgo.RetryBackoffFn(func(int) time.Duration { return d }))
	}),
	"reconnect.backoff.ms": msProp(true, true, func(c *clientConfig, d time.Duration) {
		c.opts = append(c.opts, kgo.RetryBackoffFn(func(int) time.Duration { return d }))
	}),
	// consumer
	"fetch.max.bytes":           intProp(false, true, func(c *clientConfig, n int32) { c.opts = append(c.opts, kgo.FetchMaxBytes(n)) }),
	"fetch.min.bytes":           intProp(false, true, func(c *clientConfig, n int32) { c.opts = append(c.opts, kgo.FetchMinBytes(n)) }),
	"max.partition.fetch.bytes": intProp(false, true, func(c *clientConfig, n int32) { c.opts = append(c.opts, kgo.FetchMaxPartitionBytes(n)) }),
	"fetch.max.wait.ms":         msProp(false, true, func(c *clientConfig, d time.Duration) { c.opts = append(c.opts, kgo.FetchMaxWait(d)) }),
	"max.poll.records":          intProp(false, true, func(c *clientConfig, n int32) { c.maxPollRecords = int(n) }),
	"isolation.level": {false, true, func(c *clientConfig, v string) error {
		switch v {
		case "read_committed":
		case "read_uncommitted":
			c.readUncommitted = true
		default:
			return fmt.Errorf("expected read_committed or read_uncommitted, got %q", v)
		}
		return nil
	}},
	"auto.offset.reset": {false, true, func(c *clientConfig, v string) error {
		switch v {
		case "earliest", "latest", "none":
			c.offsetReset = v
			return nil
		}
		return fmt.Errorf("expected earliest, latest or none, got %q", v)
	}},
	"enable.auto.commit": {false, true, func(_ *clientConfig, v string) error {
		if v == "false" {
			return nil
		}
		return fmt.Errorf("offsets are never committed automatically: positions live in checkpoints and the group's offsets are committed after each completed checkpoint (commit_on_checkpoint)")
	}},
	"key.deserializer":   ignored(false, true, "org.apache.kafka.common.serialization.ByteArrayDeserializer", "org.apache.kafka.common.serialization.StringDeserializer"),
	"value.deserializer": ignored(false, true, "org.apache.kafka.common.serialization.ByteArrayDeserializer", "org.apache.kafka.common.serialization.StringDeserializer"),
	// producer
	"acks": {true, false, func(c *clientConfig, v string) error {
		switch v {
		case "all", "-1":
			c.opts = append(c.opts, kgo.RequiredAcks(kgo.AllISRAcks()))
		case "1":
			c.opts = append(c.opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
		case "0":
			c.opts = append(c.opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
		default:
			return fmt.Errorf("expected all, -1, 1 or 0, got %q", v)
		}
		c.acks = v
		return nil
	}},
	"linger.ms":        msProp(true, false, func(c *clientConfig, d time.Duration) { c.opts = append(c.opts, kgo.ProducerLinger(d)) }),
	"batch.size":       intProp(true, false, func(c *clientConfig, n int32) { c.opts = append(c.opts, kgo.ProducerBatchMaxBytes(n)) }),
	"buffer.memory":    intProp(true, false, func(c *clientConfig, n int32) { c.opts = append(c.opts, kgo.MaxBufferedBytes(int(n))) }),
	"max.request.size": intProp(true, false, func(c *clientConfig, n int32) { c.opts = append(c.opts, kgo.ProducerBatchMaxBytes(n)) }),
	"max.in.flight.requests.per.connection": intProp(true, false, func(c *clientConfig, n int32) {
		c.opts = append(c.opts, kgo.MaxProduceRequestsInflightPerBroker(int(n)))
	}),
	"delivery.timeout.ms":    msProp(true, false, func(c *clientConfig, d time.Duration) { c.opts = append(c.opts, kgo.RecordDeliveryTimeout(d)) }),
	"transaction.timeout.ms": msProp(true, false, func(c *clientConfig, d time.Duration) { c.txnTimeout = d }),
	"retries":                intProp(true, false, func(c *clientConfig, n int32) { c.opts = append(c.opts, kgo.RecordRetries(int(n))) }),
	"enable.idempotence": {true, false, func(c *clientConfig, v string) error {
		switch v {
		case "true":
		case "false":
			c.opts = append(c.opts, kgo.DisableIdempotentWrite())
		default:
			return fmt.Errorf("expected true or false, got %q", v)
		}
		return nil
	}},
	"compression.type": {true, false, func(c *clientConfig, v string) error {
		codec, ok := map[string]kgo.CompressionCodec{"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(),
			"snappy": kgo.SnappyCompression(), "lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression()}[v]
		if !ok {
			return fmt.Errorf("expected none, gzip, snappy, lz4 or zstd, got %q", v)
		}
		c.opts = append(c.opts, kgo.ProducerBatchCompression(codec))
		return nil
	}},
	"key.serializer":   ignored(true, false, "org.apache.kafka.common.serialization.ByteArraySerializer", "org.apache.kafka.common.serialization.StringSerializer"),
	"value.serializer": ignored(true, false, "org.apache.kafka.common.serialization.ByteArraySerializer", "org.apache.kafka.common.serialization.StringSerializer"),
	// security, read together in security()
	"security.protocol": {true, true, nil},
	"sasl.mechanism":    {true, true, nil},
	"sasl.jaas.config":  {true, true, nil},
}

// parseClientConfig reads kafka.config for a producer or a consumer.
// Nested HOCON objects (request.timeout.ms = 1 unquoted) are flattened to
// dotted keys.
func parseClientConfig(cfg *config.PluginConfig, producer bool) (*clientConfig, error) {
	c := &clientConfig{offsetReset: "earliest"}
	flat := map[string]string{}
	var order []string
	var bad error
	var walk func(prefix string, v *hocon.Value)
	walk = func(prefix string, v *hocon.Value) {
		for _, f := range v.Fields {
			key := f.Key
			if prefix != "" {
				key = prefix + "." + f.Key
			}
			switch f.Value.Kind {
			case hocon.Object:
				walk(key, f.Value)
			case hocon.Array:
				if bad == nil {
					bad = cfg.ErrorAt(f.Value, "kafka.config."+key, "expected a single value, got a list")
				}
			default:
				flat[key] = f.Value.Text
				order = append(order, key)
			}
		}
	}
	if raw := cfg.Raw("kafka.config"); raw != nil {
		walk("", raw)
	}
	if bad != nil {
		return nil, bad
	}
	for _, key := range order {
		p, ok := props[key]
		kind := "consumer"
		if producer {
			kind = "producer"
		}
		if !ok || (producer && !p.producer) || (!producer && !p.consumer) {
			return nil, cfg.Errorf("kafka.config", "%s: not a %s property that stactor's Kafka client (franz-go) has", key, kind)
		}
		if p.apply == nil {
			continue
		}
		if err := p.apply(c, flat[key]); err != nil {
			return nil, cfg.Errorf("kafka.config", "%s: %v", key, err)
		}
	}
	sec, err := security(flat)
	if err != nil {
		return nil, cfg.Errorf("kafka.config", "%v", err)
	}
	c.opts = append(c.opts, sec...)
	return c, nil
}

var jaasOption = regexp.MustCompile(`(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"`)

// security is security.protocol, sasl.mechanism and sasl.jaas.config:
// PLAINTEXT, SSL (the system's roots), SASL_PLAINTEXT and SASL_SSL with
// PLAIN or SCRAM-SHA-256/512 from the JAAS line's username and password.
func security(p map[string]string) ([]kgo.Opt, error) {
	proto := p["security.protocol"]
	var opts []kgo.Opt
	switch proto {
	case "", "PLAINTEXT":
		if p["sasl.mechanism"] != "" {
			return nil, fmt.Errorf("sasl.mechanism needs security.protocol SASL_PLAINTEXT or SASL_SSL")
		}
		return nil, nil
	case "SSL", "SASL_SSL":
		opts = append(opts, kgo.DialTLSConfig(&tls.Config{MinVersion: tls.VersionTLS12}))
	case "SASL_PLAINTEXT":
	default:
		return nil, fmt.Errorf("security.protocol: expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL, got %q", proto)
	}
	if proto == "SSL" {
		return opts, nil
	}
	user, pass := "", ""
	for _, m := range jaasOption.FindAllStringSubmatch(p["sasl.jaas.config"], -1) {
		switch m[1] {
		case "username":
			user = m[2]
		case "password":
			pass = m[2]
		}
	}
	if user == "" {
		return nil, fmt.Errorf("sasl.jaas.config: needs username=\"...\" password=\"...\"")
	}
	switch mech := p["sasl.mechanism"]; mech {
	case "", "PLAIN":
		opts = append(opts, kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
	case "SCRAM-SHA-256":
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()))
	case "SCRAM-SHA-512":
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()))
	default:
		return nil, fmt.Errorf("sasl.mechanism: expected PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, got %q", mech)
	}
	return opts, nil
}
