package localfile

import (
	"encoding/json"
	"fmt"
)

// commitInfo is what a writer's PrepareCommit returns: the files it staged
// for a checkpoint and the names they take when committed. It is JSON so
// that a checkpoint can be read by a person.
type commitInfo struct {
	Version    int    `json:"v"`
	Job        string `json:"job"`
	Pipeline   int    `json:"pipeline"`
	Attempt    int    `json:"attempt"`
	Subtask    int    `json:"subtask"`
	Checkpoint int64  `json:"checkpoint"`
	Txn        string `json:"txn"`
	// Staging is the writer's transaction folder, removed once empty.
	Staging string     `json:"staging"`
	Files   []fileMove `json:"files"`
}

// fileMove is one staged file and its final path. With Write, the staged
// bytes are written into the final file at offset At instead of renamed
// (a later piece of a binary file, see binarysink.go).
type fileMove struct {
	From  string `json:"from"`
	To    string `json:"to"`
	At    int64  `json:"at,omitempty"`
	Write bool   `json:"write,omitempty"`
}

const commitInfoVersion = 1

func (c *commitInfo) encode() ([]byte, error) {
	c.Version = commitInfoVersion
	return json.Marshal(c)
}

func decodeCommitInfo(b []byte) (*commitInfo, error) {
	var c commitInfo
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("LocalFile commit info: %w", err)
	}
	if c.Version != commitInfoVersion {
		return nil, fmt.Errorf("LocalFile commit info: unknown version %d", c.Version)
	}
	return &c, nil
}

// writerState is what a writer's SnapshotState saves: the transaction it
// stages next and the next file part number.
type writerState struct {
	Version int   `json:"v"`
	Next    int64 `json:"next"`
	Part    int64 `json:"part"`
	// BinLast is the binary sink's last chunk index of each file written.
	BinLast map[string]int64 `json:"binLast,omitempty"`
}
