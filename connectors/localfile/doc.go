// Package localfile is SeaTunnel's LocalFile connector: a source that reads
// text, csv, json, parquet, orc (package orc), xml, excel (xlsx, and xls on
// read) and binary files under a path, and a sink that writes them with
// exactly-once delivery; gzip and lzo (lzop files, package lzop) compress
// text, csv, json and xml. Option names, defaults and value
// renderings follow SeaTunnel's connector-file and format modules (each
// function names the Java class it follows).
//
// Source. The factory's Resolve lists the files, once per job on the
// master (recursively, skipping empty files, _SUCCESS and hidden entries —
// hidden folders too, where the sink stages — filtered by
// file_filter_pattern and filename_extension, archives replaced by their
// entries), and the listing is the source's resolved bytes: Create, on
// the master and again wherever a reader or the enumerator is deployed,
// takes the files from the plan and lists nothing (resolve.go). A missing
// path or a bad schema is so a positioned config error before anything
// runs; parquet and orc files give their own schema, read from the first
// listed file by Resolve and shipped with the listing. A folder
// with no file reads zero rows of the table SeaTunnel's
// BaseFileSourceConfig returns before any format looks at a file (the
// simple text table, or the schema as declared, even one of no columns).
// With a gzip codec, a file without gzip's magic is read plain with a plan
// warning, found in Resolve and placed at the codec option with
// config.PluginConfig.Warnf (plaingzip.go), as SeaTunnel reads the
// gzip files its text writers write plain. The enumerator cuts
// one split per file, and per record-aligned block for large uncompressed
// text, csv and json files (not csv files read by their header line,
// csvheader.go), and deals them round-robin in split-id order as
// SeaTunnel's MultipleTableFileSourceSplitEnumerator does. A split's
// position is a byte offset (text formats, binary) or a row index (parquet, orc;
// xml and excel, parsed whole as SeaTunnel's dom4j and POI readers do), so
// a reader restored from a checkpoint continues with exactly the next row.
// Readers parse straight into the batch's typed columns.
//
// Sink. A writer stages its files under
// <path>/.stactor-staging/<job>/<pipeline>/<attempt>-t<term>/<subtask>/<txn>/ and
// PrepareCommit(n) closes and fsyncs them and returns a commit info of
// (staging, final) pairs whose final names carry SeaTunnel's transaction id
// T_<job>_<pipeline>_<subtask>_<n>, so committing again names the same
// files. The per-writer Committer renames them into place on the node that
// wrote (DESIGN §8: the sink is a connectors.WriterNodeCommitter, so the
// engine sends each node's infos to that node), idempotently, fsyncing the
// folders; Abort and AbortStale delete staging only, never a committed
// file, and AbortStale runs on every node on restore. Row kinds are not
// written: as SeaTunnel's file sinks, every row is written as it is. With
// is_enable_transaction = false files are written straight to their final
// names as rows arrive, which is not exactly-once: a replay after a
// failover writes rows again. schema_save_mode and data_save_mode are
// applied to the path once before the job runs (HandleSaveMode).
package localfile
