package jdbc

import (
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
)

// connectionOptions are the source's and the sink's (SeaTunnel's
// JdbcCommonOptions).
var connectionOptions = []config.Option{
	{Key: "url", Type: config.TypeString, Required: true, Doc: "the JDBC URL: jdbc:postgresql://host:port/db, jdbc:mysql://host:port/db or jdbc:mariadb://..."},
	{Key: "driver", Type: config.TypeString, Required: true, Doc: "the JDBC driver class, checked against the URL (org.postgresql.Driver, com.mysql.cj.jdbc.Driver, org.mariadb.jdbc.Driver)"},
	{Key: "user", Type: config.TypeString, Fallbacks: []string{"username"}, Doc: "user name"},
	{Key: "password", Type: config.TypeString, Doc: "password"},
	{Key: "properties", Type: config.TypeObject, Doc: "connection parameters, over the URL's"},
	{Key: "connection_check_timeout_sec", Type: config.TypeInt, Default: int64(30), Doc: "seconds to wait for a connection to be made and checked"},
	{Key: "compatible_mode", Type: config.TypeString, Doc: "accepted for SeaTunnel's job files; PostgreSQL and MySQL need none"},
	{Key: "dialect", Type: config.TypeString, Doc: "accepted for SeaTunnel's job files; the URL decides the dialect"},
}

var sourceOptions = append(append([]config.Option{}, connectionOptions...), []config.Option{
	{Key: "query", Type: config.TypeString, Doc: "the query to read (instead of, or with, table_path)"},
	{Key: "table_path", Type: config.TypeString, Doc: "the table to read: database.schema.table (PostgreSQL) or database.table (MySQL)"},
	{Key: "table_list", Type: config.TypeList, Doc: "tables to read: a list of {table_path, query}"},
	{Key: "where_condition", Type: config.TypeString, Doc: "a row filter for every table, starting with where"},
	{Key: "fetch_size", Type: config.TypeInt, Default: int64(0), Doc: "rows per round trip (0: the rows of a batch); results are streamed either way"},
	{Key: "partition_column", Type: config.TypeString, Doc: "the split key"},
	{Key: "partition_lower_bound", Type: config.TypeString, Doc: "the least split-key value to split from (read from the table when unset)"},
	{Key: "partition_upper_bound", Type: config.TypeString, Doc: "the greatest split-key value to split to (read from the table when unset)"},
	{Key: "partition_num", Type: config.TypeInt, Doc: "the number of splits (not recommended: split.size)"},
	{Key: "split.size", Type: config.TypeInt, Default: int64(8096), Doc: "rows per split"},
	{Key: "split.even-distribution.factor.lower-bound", Type: config.TypeFloat, Default: 0.05, Doc: "least (max-min+1)/rows of an evenly distributed key"},
	{Key: "split.even-distribution.factor.upper-bound", Type: config.TypeFloat, Default: 100.0, Doc: "greatest (max-min+1)/rows of an evenly distributed key"},
	{Key: "split.sample-sharding.threshold", Type: config.TypeInt, Default: int64(1000), Doc: "splits above which an uneven key is sampled; stactor cuts such keys by index range instead"},
	{Key: "split.inverse-sampling.rate", Type: config.TypeInt, Default: int64(1000), Doc: "the inverse of the sampling rate; see split.sample-sharding.threshold"},
	{Key: "decimal_type_narrowing", Type: config.TypeBool, Default: true, Doc: "Oracle only in SeaTunnel; accepted"},
	{Key: "use_select_count", Type: config.TypeBool, Default: false, Doc: "count rows with SELECT COUNT(*) instead of the statistics when choosing splits"},
	{Key: "skip_analyze", Type: config.TypeBool, Default: false, Doc: "Oracle only in SeaTunnel; accepted"},
}...)

var sinkOptions = append(append([]config.Option{}, connectionOptions...), []config.Option{
	{Key: "query", Type: config.TypeString, Doc: "a statement to write each row with, its ? in field order"},
	{Key: "database", Type: config.TypeString, Doc: "the database to write (with table, instead of query)"},
	{Key: "table", Type: config.TypeString, Doc: "the table to write; may hold ${table_name}, ${schema_name}, ${database_name}"},
	{Key: "schema", Type: config.TypeString, Doc: "PostgreSQL: the schema of the table written, over the one table names"},
	{Key: "tablePrefix", Type: config.TypeString, Doc: "put before the name of the table written"},
	{Key: "tableSuffix", Type: config.TypeString, Doc: "put after the name of the table written"},
	{Key: "primary_keys", Type: config.TypeStrings, Doc: "the key of upserts and deletes (the input's primary key by default; ${primary_key} stands for it)"},
	{Key: "generate_sink_sql", Type: config.TypeBool, Default: false, Doc: "build the statements from database and table"},
	{Key: "enable_upsert", Type: config.TypeBool, Default: true, Doc: "upsert by primary_keys (ON CONFLICT / ON DUPLICATE KEY)"},
	{Key: "support_upsert_by_query_primary_key_exist", Type: config.TypeBool, Default: false, Doc: "accepted: both databases have upserts"},
	{Key: "batch_size", Type: config.TypeInt, Default: int64(1000), Doc: "rows per write round"},
	{Key: "max_retries", Type: config.TypeInt, Default: int64(0), Doc: "retries of a failed write round (not in exactly-once mode)"},
	{Key: "use_copy_statement", Type: config.TypeBool, Default: false, Doc: "PostgreSQL: insert with COPY ... FROM STDIN"},
	{Key: "field_ide", Type: config.TypeEnum, Enum: []string{"ORIGINAL", "UPPERCASE", "LOWERCASE"}, Default: "ORIGINAL", Doc: "case of the column names written"},
	{Key: "is_exactly_once", Type: config.TypeBool, Default: false, Doc: "write each checkpoint in one prepared (XA) transaction"},
	{Key: "xa_data_source_class_name", Type: config.TypeString, Doc: "the XA data source class (checked against the URL)"},
	{Key: "max_commit_attempts", Type: config.TypeInt, Default: int64(3), Doc: "tries of one commit of a prepared transaction before the committer reports failure"},
	{Key: "transaction_timeout_sec", Type: config.TypeInt, Default: int64(-1), Doc: "seconds an open transaction may stay idle before the server ends it (-1: never)"},
	{Key: "auto_commit", Type: config.TypeBool, Default: true, Doc: "accepted: without exactly-once each write round commits"},
	{Key: "schema_save_mode", Type: config.TypeEnum, Enum: []string{"RECREATE_SCHEMA", "CREATE_SCHEMA_WHEN_NOT_EXIST", "ERROR_WHEN_SCHEMA_NOT_EXIST", "IGNORE"}, Default: "CREATE_SCHEMA_WHEN_NOT_EXIST", Doc: "what to do with the target table before the job writes (create, recreate, require it)"},
	{Key: "data_save_mode", Type: config.TypeEnum, Enum: []string{"DROP_DATA", "APPEND_DATA", "CUSTOM_PROCESSING", "ERROR_WHEN_DATA_EXISTS"}, Default: "APPEND_DATA", Doc: "what to do with the target's rows before the job writes (keep, drop, refuse, run custom_sql)"},
	{Key: "custom_sql", Type: config.TypeString, Doc: "the statement data_save_mode CUSTOM_PROCESSING runs"},
	{Key: "create_index", Type: config.TypeBool, Default: true, Doc: "create the primary key when creating the table"},
	{Key: "multi_table_sink_replica", Type: config.TypeInt, Default: int64(1), Doc: "writers (sessions) of each table in one subtask, rows routed to them by primary key (not with is_exactly_once)"},
}...)

// connFrom reads the connection options and checks url and driver.
func connFrom(cfg *config.PluginConfig) (connOptions, error) {
	c := connOptions{URL: cfg.String("url"), User: cfg.String("user"), Password: cfg.String("password"),
		CheckTimeout: time.Duration(cfg.Int("connection_check_timeout_sec")) * time.Second}
	if err := c.parse(); err != nil {
		return c, cfg.Errorf("url", "%v", err)
	}
	if err := checkClass("driver", cfg.String("driver"), c.url, driverClasses); err != nil {
		return c, cfg.Errorf("driver", "%v", err)
	}
	if cfg.Int("connection_check_timeout_sec") < 0 {
		return c, cfg.Errorf("connection_check_timeout_sec", "must not be negative")
	}
	if v := cfg.Raw("properties"); v != nil {
		c.Properties = map[string]string{}
		flatten(v, "", c.Properties)
	}
	return c, nil
}

// flatten reads an object's leaves as dotted keys and text values.
func flatten(v *hocon.Value, prefix string, out map[string]string) {
	for _, f := range v.Fields {
		k := f.Key
		if prefix != "" {
			k = prefix + "." + k
		}
		if f.Value.Kind == hocon.Object {
			flatten(f.Value, k, out)
			continue
		}
		out[k] = f.Value.String()
	}
}

// withConn fills the connection options from cfg into c, keeping the
// database Resolve chose.
func withConn(cfg *config.PluginConfig, c *connOptions) error {
	fresh, err := connFrom(cfg)
	if err != nil {
		return err
	}
	fresh.Database = c.Database
	*c = fresh
	return nil
}
