package localfile

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/localfile/lzop"
	"github.com/stactor/stactor/row"
)

// writeBuffer is the buffer of each open text, csv or json file: 64 KiB
// makes a write call cost next to nothing per row, and a writer may have
// many files open at once (one per partition folder).
const writeBuffer = 64 << 10

// writer writes one subtask's rows into files, SeaTunnel's
// AbstractWriteStrategy: one open file per partition folder, a new set of
// files every batch_size rows, and all of them staged (when transactional)
// until PrepareCommit hands their final names to the committer.
type writer struct {
	cfg  *sinkConfig
	task connectors.TaskInfo
	now  func() time.Time

	seq  int64 // the checkpoint id this transaction expects
	part int64 // the file part number, never reused by this writer
	// open files by partition folder; done holds the closed files of the
	// current transaction.
	open map[string]*outFile
	done []*outFile
	rows int64 // rows in the current part, for batch_size

	// lastPrepared is the info of the last PrepareCommit, for AbortPrepare.
	lastPrepared *commitInfo

	// binary: this transaction's files and the last chunk of each file
	bin     map[string]*binFile
	binLast map[string]int64

	line  []byte        // scratch for one row
	cols  []*row.Column // scratch: the written columns of a batch
	conv  []byte        // scratch for latin1
	idx   map[string][]int
	order []string
}

var (
	_ connectors.Writer        = (*writer)(nil)
	_ connectors.BatchBorrower = (*writer)(nil)
)

// BorrowsBatches: Write formats or copies what it keeps of a batch (lines
// into the file's buffer, parquet and excel values, which hold strings and
// byte values but never the batch's vectors), so the engine may recycle
// the batch's vectors as soon as Write returns.
func (w *writer) BorrowsBatches() {}

func newWriter(cfg *sinkConfig, task connectors.TaskInfo, states [][]byte) (*writer, error) {
	w := &writer{cfg: cfg, task: task, now: time.Now, seq: 1, open: map[string]*outFile{}, idx: map[string][]int{},
		bin: map[string]*binFile{}, binLast: map[string]int64{}}
	for _, st := range states {
		var s writerState
		if err := json.Unmarshal(st, &s); err != nil {
			return nil, fmt.Errorf("LocalFile writer state: %w", err)
		}
		w.seq = max(w.seq, s.Next)
		w.part = max(w.part, s.Part)
		for rel, last := range s.BinLast {
			w.binLast[rel] = max(w.binLast[rel], last)
		}
	}
	return w, nil
}

// outFile is a file being written.
type outFile struct {
	path    string // where it is written (staging, or final without transactions)
	partDir string
	name    string // final name with ${transactionId} still to fill
	f       *os.File
	gz      io.WriteCloser // the compressor (gzip, lzop), if any
	bw      *bufio.Writer
	pq      *parquetOut
	orc     *orcOut
	xl      *excelOut
	xml     *xmlOut
	rows    int64
}

func (w *writer) dir() string {
	return txnDir(w.cfg.root, w.task.JobID, w.task.Pipeline, w.task.Attempt, w.task.Term, w.task.SubtaskIndex, w.seq)
}

// fileName is SeaTunnel's generateFileName: the expression with ${now},
// ${uuid} and ${<filename_time_format>} filled now and ${transactionId}
// later, the part number unless single_file_mode, and the extension.
func (w *writer) fileName() string {
	now := w.now().Format(w.cfg.timeLayout)
	name := substitute(w.cfg.nameExpr, map[string]string{"now": now, "uuid": uuid.NewString(), w.cfg.timeKey: now})
	if !w.cfg.singleFile {
		name += "_" + strconv.FormatInt(w.part, 10)
	}
	return name + w.cfg.ext
}

// finalName is a file's name once its transaction id is known.
func (f *outFile) finalName(txn string) string {
	return substitute(f.name, map[string]string{"transactionId": txn})
}

// partitionDir is the folder of row i (SeaTunnel's generatorPartitionDir).
func (w *writer) partitionDir(b *row.Batch, i int) (string, error) {
	if len(w.cfg.partCols) == 0 {
		return "", nil
	}
	vals := make([]string, len(w.cfg.partCols))
	for k, c := range w.cfg.partCols {
		vals[k] = partitionValue(b.Cols[c], i)
	}
	var dir string
	if w.cfg.partExpr == "" {
		parts := make([]string, len(vals))
		for k, v := range vals {
			parts[k] = w.cfg.partNames[k] + "=" + v
		}
		dir = strings.Join(parts, "/")
	} else {
		vars := map[string]string{}
		for k, v := range vals {
			vars["k"+strconv.Itoa(k)] = w.cfg.partNames[k]
			vars["v"+strconv.Itoa(k)] = v
		}
		dir = substitute(w.cfg.partExpr, vars)
	}
	dir = filepath.Clean(strings.Trim(dir, "/"))
	if dir == "." || dir == ".." || strings.HasPrefix(dir, "../") || filepath.IsAbs(dir) || strings.HasPrefix(dir, stagingDir) {
		return "", fmt.Errorf("partition folder %q of row %d is not inside the sink's path", dir, i)
	}
	return dir, nil
}

// partitionValue renders a partition value as Java's toString does.
func partitionValue(c *row.Column, i int) string {
	if c.IsNull(i) {
		return "null"
	}
	if c.Type.ID == row.TypeDecimal {
		return row.JavaDecimal(c.Decs[i], c.Type.Scale)
	}
	return row.Text(c.Type, c.Value(i))
}

// fileFor returns the open file of a partition folder, opening it.
func (w *writer) fileFor(partDir string) (*outFile, error) {
	if f, ok := w.open[partDir]; ok {
		return f, nil
	}
	f := &outFile{partDir: partDir, name: w.fileName()}
	if w.cfg.transactional {
		f.path = filepath.Join(w.dir(), partDir, fmt.Sprintf("%d%s", w.part, w.cfg.ext))
	} else {
		f.path = filepath.Join(w.cfg.root, partDir, f.finalName(transactionID(w.task.JobID, w.task.Pipeline, w.task.SubtaskIndex, w.seq)))
	}
	var err error
	if f.f, err = createFile(f.path, !w.cfg.transactional); err != nil {
		return nil, err
	}
	var out io.Writer = f.f
	switch w.cfg.format {
	case formatParquet:
		if f.pq, err = newParquetOut(f.f, w.cfg.pschema, w.cfg.codec); err != nil {
			f.f.Close()
			os.Remove(f.path)
			return nil, err
		}
	case formatORC:
		if f.orc, err = newORCOut(f.f, w.cfg.oschema, w.cfg.ocodec); err != nil {
			f.f.Close()
			os.Remove(f.path)
			return nil, err
		}
	case formatExcel:
		if f.xl, err = newExcelOut(w.cfg, f.f); err != nil {
			f.f.Close()
			os.Remove(f.path)
			return nil, err
		}
	default:
		switch {
		case w.cfg.gzip:
			f.gz = gzip.NewWriter(f.f)
			out = f.gz
		case w.cfg.lzo:
			f.gz = lzop.NewWriter(f.f)
			out = f.gz
		}
		f.bw = bufio.NewWriterSize(out, writeBuffer)
		if w.cfg.header {
			names := make([]string, len(w.cfg.fields))
			for k, fl := range w.cfg.fields {
				names[k] = fl.Name
			}
			w.writeLine(f, []byte(strings.Join(names, w.cfg.render.seps[0])))
		}
		if w.cfg.format == formatXML {
			f.xml = &xmlOut{cfg: w.cfg}
			w.writeLine(f, f.xml.header(w.cfg.charsetName()))
		}
	}
	w.open[partDir] = f
	return f, nil
}

// createFile creates a new file, and its folders; a folder removed under
// it by a concurrent commit's cleanup is created again.
func createFile(path string, truncate bool) (*os.File, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if truncate {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	var err error
	for try := 0; try < 5; try++ {
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			continue
		}
		var f *os.File
		if f, err = os.OpenFile(path, flags, 0o644); err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return nil, err
}

func (w *writer) writeLine(f *outFile, line []byte) {
	switch {
	case w.cfg.latin1 && hasHigh(line):
		w.conv = utf8ToLatin1(w.conv, line)
		line = w.conv
	case w.cfg.charset != nil && hasHigh(line):
		w.conv = encodeCharset(w.conv, w.cfg.charset, line)
		line = w.conv
	}
	f.bw.Write(line)
	f.bw.WriteString(w.cfg.rowDelim)
}

// Write writes a batch, rolling to new files every batch_size rows.
func (w *writer) Write(b *row.Batch) error {
	if len(b.Cols) != w.cfg.input.Len() {
		return fmt.Errorf("LocalFile: batch of table %s has %d columns, the sink was planned for %d", b.Schema.TableID, len(b.Cols), w.cfg.input.Len())
	}
	if w.cfg.format == formatBinary {
		return w.writeBinary(b)
	}
	n := b.Len()
	for from := 0; from < n; {
		if w.rows >= w.cfg.batchSize && !w.cfg.singleFile {
			if err := w.roll(); err != nil {
				return err
			}
		}
		to := n
		if !w.cfg.singleFile {
			to = min(n, from+int(w.cfg.batchSize-w.rows))
		}
		if err := w.writeRange(b, from, to); err != nil {
			return err
		}
		w.rows += int64(to - from)
		from = to
	}
	return nil
}

// writeRange writes rows [from, to) of b, grouped by partition folder.
func (w *writer) writeRange(b *row.Batch, from, to int) error {
	if len(w.cfg.partCols) == 0 {
		f, err := w.fileFor("")
		if err != nil {
			return err
		}
		return w.writeRows(f, b, from, to, nil)
	}
	clear(w.idx)
	w.order = w.order[:0]
	for i := from; i < to; i++ {
		dir, err := w.partitionDir(b, i)
		if err != nil {
			return err
		}
		if _, ok := w.idx[dir]; !ok {
			w.order = append(w.order, dir)
		}
		w.idx[dir] = append(w.idx[dir], i)
	}
	for _, dir := range w.order {
		f, err := w.fileFor(dir)
		if err != nil {
			return err
		}
		if err := w.writeRows(f, b, 0, 0, w.idx[dir]); err != nil {
			return err
		}
	}
	return nil
}

// writeRows writes rows idx of b, or [from, to) when idx is nil.
func (w *writer) writeRows(f *outFile, b *row.Batch, from, to int, idx []int) error {
	count := to - from
	if idx != nil {
		count = len(idx)
	}
	f.rows += int64(count)
	if f.pq != nil || f.orc != nil || f.xl != nil {
		if idx == nil {
			idx = make([]int, 0, count)
			for i := from; i < to; i++ {
				idx = append(idx, i)
			}
		}
		var err error
		switch {
		case f.pq != nil:
			err = f.pq.write(b, w.cfg.cols, idx)
		case f.orc != nil:
			err = f.orc.write(b, w.cfg.cols, idx)
		default:
			err = f.xl.write(b, idx)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		return nil
	}
	cols := w.cols[:0]
	for _, c := range w.cfg.cols {
		cols = append(cols, b.Cols[c])
	}
	w.cols = cols
	defer clear(cols) // keep no column of the batch past the call
	for r := 0; r < count; r++ {
		i := from + r
		if idx != nil {
			i = idx[r]
		}
		line := w.line[:0]
		if f.xml != nil {
			var err error
			if line, err = f.xml.appendRow(line, cols, i); err != nil {
				return fmt.Errorf("%s: row %d: %w", f.path, i, err)
			}
		} else if w.cfg.format == formatJSON {
			line = append(line, '{')
			for k, c := range cols {
				if k > 0 {
					line = append(line, ',')
				}
				line = row.AppendJSONString(line, w.cfg.fields[k].Name)
				line = append(line, ':')
				line = appendJSONCol(line, c, i)
			}
			line = append(line, '}')
		} else {
			for k, c := range cols {
				if k > 0 {
					line = append(line, w.cfg.render.seps[0]...)
				}
				line = w.cfg.render.appendCol(line, c, i)
			}
		}
		w.line = line
		w.writeLine(f, line)
	}
	return nil
}

// finish closes a file durably: flushed, footer written, fsynced.
func (f *outFile) finish(w *writer) error {
	var err error
	if f.pq != nil {
		err = f.pq.close()
	}
	if f.orc != nil {
		err = f.orc.close()
	}
	if f.xl != nil {
		err = f.xl.close()
	}
	if f.xml != nil {
		w.writeLine(f, f.xml.footer())
	}
	if f.bw != nil {
		err = errors.Join(err, f.bw.Flush())
	}
	if f.gz != nil {
		err = errors.Join(err, f.gz.Close())
	}
	err = errors.Join(err, f.f.Sync(), f.f.Close())
	if err != nil {
		return fmt.Errorf("closing %s: %w", f.path, err)
	}
	return nil
}

// roll closes the open files and starts the next part.
func (w *writer) roll() error {
	if err := w.finishOpen(); err != nil {
		return err
	}
	w.part++
	w.rows = 0
	return nil
}

func (w *writer) finishOpen() error {
	var err error
	for _, dir := range sortedKeys(w.open) {
		f := w.open[dir]
		err = errors.Join(err, f.finish(w))
		w.done = append(w.done, f)
	}
	clear(w.open)
	return err
}

func sortedKeys(m map[string]*outFile) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// PrepareCommit closes the files of the transaction and returns the info
// that commits them under checkpoint id: their staging paths and final
// names with the transaction id of id. Without transactions the files are
// already in place and there is nothing to commit.
func (w *writer) PrepareCommit(checkpointID int64) ([]byte, error) {
	if len(w.open) == 0 && len(w.done) == 0 && w.cfg.emptyFile {
		if _, err := w.fileFor(""); err != nil {
			return nil, err
		}
	}
	if err := w.finishOpen(); err != nil {
		return nil, err
	}
	binMoves, err := w.finishBinary()
	if err != nil {
		return nil, err
	}
	files := w.done
	dir := w.dir()
	w.done = nil
	w.seq = checkpointID + 1
	// As SeaTunnel's, the part number goes on across transactions (names
	// differ by transaction id); the next file starts empty.
	w.rows = 0
	if !w.cfg.transactional || (len(files) == 0 && len(binMoves) == 0) {
		return nil, nil
	}
	txn := transactionID(w.task.JobID, w.task.Pipeline, w.task.SubtaskIndex, checkpointID)
	info := &commitInfo{Job: w.task.JobID, Pipeline: w.task.Pipeline, Attempt: w.task.Attempt, Subtask: w.task.SubtaskIndex,
		Checkpoint: checkpointID, Txn: txn, Staging: dir}
	dirs := map[string]bool{}
	for _, f := range files {
		info.Files = append(info.Files, fileMove{From: f.path, To: filepath.Join(w.cfg.root, f.partDir, f.finalName(txn))})
		dirs[filepath.Dir(f.path)] = true
	}
	for _, m := range binMoves {
		info.Files = append(info.Files, m)
		dirs[filepath.Dir(m.From)] = true
	}
	// The staged files' folder entries must survive a crash too.
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return nil, err
		}
	}
	w.lastPrepared = info
	return info.encode()
}

// SnapshotState saves the next transaction and part number.
func (w *writer) SnapshotState(checkpointID int64) ([][]byte, error) {
	b, err := json.Marshal(writerState{Version: 1, Next: w.seq, Part: w.part, BinLast: w.binLast})
	if err != nil {
		return nil, err
	}
	return [][]byte{b}, nil
}

// AbortPrepare deletes the files the last PrepareCommit staged.
func (w *writer) AbortPrepare() error {
	info := w.lastPrepared
	w.lastPrepared = nil
	if info == nil {
		return nil
	}
	return abortInfo(info)
}

// Close closes the open files and deletes those not prepared: nothing is
// committed here. Without transactions the files stay where they are.
func (w *writer) Close() error {
	var err error
	for _, dir := range sortedKeys(w.open) {
		f := w.open[dir]
		err = errors.Join(err, f.finish(w))
		w.done = append(w.done, f)
	}
	clear(w.open)
	for _, bf := range w.bin {
		err = errors.Join(err, bf.f.Close())
		if w.cfg.transactional {
			if rerr := os.Remove(bf.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = errors.Join(err, rerr)
			}
		}
	}
	clear(w.bin)
	if w.cfg.transactional {
		for _, f := range w.done {
			if rerr := os.Remove(f.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = errors.Join(err, rerr)
			}
		}
		removeEmptyDirs(w.dir(), filepath.Join(w.cfg.root, stagingDir))
	}
	w.done = nil
	return err
}
