package kafka

import (
	"strings"

	"github.com/stactor/stactor/config"
)

// The formats of record values (SeaTunnel's MessageFormat has more: avro,
// protobuf, native, maxwell_json, ogg_json; asking for one is a config
// error that lists these).
const (
	formatJSON     = "json"
	formatText     = "text"
	formatCanal    = "canal_json"
	formatDebezium = "debezium_json"
)

var formats = []string{formatJSON, formatText, formatCanal, formatDebezium}

// formatCompatibleDebezium is the sink's format of rows (topic, key,
// value) that a CDC source with format = COMPATIBLE_DEBEZIUM_JSON emits:
// each row is a record of its topic with its key and value as they are
// (SeaTunnel's CompatibleDebeziumJsonSerializationSchema).
const formatCompatibleDebezium = "compatible_debezium_json"

var sinkFormats = append(append([]string{}, formats...), formatCompatibleDebezium)

// The start modes (SeaTunnel's StartMode).
const (
	startEarliest  = "earliest"
	startGroup     = "group_offsets"
	startLatest    = "latest"
	startSpecific  = "specific_offsets"
	startTimestamp = "timestamp"
)

var startModes = []string{startEarliest, startGroup, startLatest, startSpecific, startTimestamp}

// The sink's delivery semantics (SeaTunnel's KafkaSemantics).
const (
	semanticsExactlyOnce = "EXACTLY_ONCE"
	semanticsAtLeastOnce = "AT_LEAST_ONCE"
	semanticsNon         = "NON"
)

// defaultGroup is SeaTunnel's consumer.group default.
const defaultGroup = "SeaTunnel-Consumer-Group"

var (
	optServers = config.Option{Key: "bootstrap.servers", Type: config.TypeString, Required: true, Doc: "comma separated host:port of Kafka brokers"}
	optConfig  = config.Option{Key: "kafka.config", Type: config.TypeObject, Doc: "Kafka client properties; those franz-go has are applied, others are an error"}
	optDelim   = config.Option{Key: "field_delimiter", Type: config.TypeString, Default: ",", Doc: "the field separator of the text format"}
)

// topicOptions are the options of one source table: at the top of the
// source block, or in each entry of table_list.
var topicOptions = []config.Option{
	{Key: "topic", Type: config.TypeString, Doc: "topic names separated by commas, or a regular expression when pattern is true"},
	{Key: "pattern", Type: config.TypeBool, Default: false, Doc: "topic is a regular expression of topic names"},
	{Key: "consumer.group", Type: config.TypeString, Default: defaultGroup, Doc: "the consumer group whose offsets start_mode=group_offsets reads and checkpoints commit"},
	config.SchemaOption,
	{Key: "format", Type: config.TypeEnum, Enum: formats, Default: formatJSON, Doc: "the record values' format"},
	{Key: "format_error_handle_way", Type: config.TypeEnum, Enum: []string{"fail", "skip"}, Default: "fail", Doc: "a record that does not parse fails the job, or is skipped"},
	optDelim,
	// start_mode is read by the connector: written unquoted next to
	// start_mode.offsets it is turned into an object by HOCON, which
	// deserves its own message.
	{Key: "start_mode", Type: config.TypeAny, Default: startGroup, Doc: "where a fresh job starts reading: " + strings.Join(startModes, ", ")},
	{Key: "start_mode.offsets", Type: config.TypeObject, Doc: "for specific_offsets: { \"topic-partition\" = offset, ... }"},
	{Key: "start_mode.timestamp", Type: config.TypeInt, Doc: "for timestamp: milliseconds since 1970"},
}

// sourceOptions are the Kafka source's options (KafkaSourceOptions).
var sourceOptions = append([]config.Option{
	optServers,
	optConfig,
	{Key: "table_list", Type: config.TypeList, Doc: "one table per entry, each with its own topic, schema, format and start_mode"},
	{Key: "commit_on_checkpoint", Type: config.TypeBool, Default: true, Doc: "commit the group's offsets after each completed checkpoint (information only: restores read checkpoints)"},
	{Key: "poll.timeout", Type: config.TypeInt, Default: int64(10000), Doc: "accepted for compatibility: reads wait at most 100 ms per poll, fetch.max.wait.ms bounds a fetch"},
	{Key: "partition-discovery.interval-millis", Type: config.TypeInt, Default: int64(-1), Doc: "ms between looks for new partitions and topics in STREAMING (-1: never)"},
	{Key: "reader_cache_queue_size", Type: config.TypeInt, Default: int64(1024), Doc: "batches a reader fetches ahead"},
}, topicOptions...)

// sinkOptions are the Kafka sink's options (KafkaSinkOptions).
var sinkOptions = []config.Option{
	{Key: "topic", Type: config.TypeString, Required: true, Template: true, Doc: "the topic written to, or ${field} for the value of a field of each row"},
	optServers,
	optConfig,
	{Key: "semantics", Type: config.TypeEnum, Enum: []string{semanticsExactlyOnce, semanticsAtLeastOnce, semanticsNon}, Default: semanticsNon, Doc: "delivery guarantee"},
	{Key: "partition_key_fields", Type: config.TypeStrings, Doc: "fields whose values, as a JSON object, are the record key"},
	{Key: "partition", Type: config.TypeInt, Doc: "send every record to this partition"},
	{Key: "assign_partitions", Type: config.TypeStrings, Doc: "a record whose value contains the i-th string goes to partition i"},
	{Key: "transaction_prefix", Type: config.TypeString, Doc: "prefix of the transactional ids (EXACTLY_ONCE)"},
	{Key: "format", Type: config.TypeEnum, Enum: sinkFormats, Default: formatJSON, Doc: "the record values' format; compatible_debezium_json: the rows of a CDC source's COMPATIBLE_DEBEZIUM_JSON, each to its topic with its key and value"},
	optDelim,
}
