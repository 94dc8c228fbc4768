package localfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stactor/stactor/connectors"
)

var _ connectors.SaveModeHandler = (*sink)(nil)

// HandleSaveMode applies schema_save_mode, then data_save_mode, to the
// sink's path as SeaTunnel's DefaultSaveModeHandler does with the file
// connectors' catalog (AbstractFileCatalog), where the table is the path:
// it exists when the path does; creating it makes the folder, dropping it
// deletes the folder, truncating deletes and makes it again, and it has
// data when a file lies anywhere below it (stactor's own staging folder
// aside).
//
//	RECREATE_SCHEMA               drop the path if it exists, then create it
//	CREATE_SCHEMA_WHEN_NOT_EXIST  create the path if it does not exist
//	ERROR_WHEN_SCHEMA_NOT_EXIST   fail if the path does not exist
//	IGNORE                        nothing
//	DROP_DATA                     truncate the path if it exists
//	APPEND_DATA                   nothing
//	ERROR_WHEN_DATA_EXISTS        fail if a file lies below the path
//
// It runs on the node of the JobMaster: on a cluster whose workers each
// write their own local path, the others are not cleared (SeaTunnel's
// LocalFile has the same limit).
func (s *sink) HandleSaveMode(context.Context) error {
	root := s.cfg.root
	switch s.cfg.schemaSaveMode {
	case "RECREATE_SCHEMA":
		if err := os.RemoveAll(root); err != nil {
			return fmt.Errorf("RECREATE_SCHEMA: %w", err)
		}
		if err := os.MkdirAll(root, 0o755); err != nil {
			return fmt.Errorf("RECREATE_SCHEMA: %w", err)
		}
	case "CREATE_SCHEMA_WHEN_NOT_EXIST":
		if err := os.MkdirAll(root, 0o755); err != nil {
			return fmt.Errorf("CREATE_SCHEMA_WHEN_NOT_EXIST: %w", err)
		}
	case "ERROR_WHEN_SCHEMA_NOT_EXIST":
		if _, err := os.Stat(root); err != nil {
			return fmt.Errorf("ERROR_WHEN_SCHEMA_NOT_EXIST: path %s: %w", root, err)
		}
	}
	switch s.cfg.dataSaveMode {
	case "DROP_DATA":
		if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err := os.RemoveAll(root); err != nil {
			return fmt.Errorf("DROP_DATA: %w", err)
		}
		if err := os.MkdirAll(root, 0o755); err != nil {
			return fmt.Errorf("DROP_DATA: %w", err)
		}
	case "ERROR_WHEN_DATA_EXISTS":
		file, err := anyFile(root)
		if err != nil {
			return fmt.Errorf("ERROR_WHEN_DATA_EXISTS: %w", err)
		}
		if file != "" {
			return fmt.Errorf("ERROR_WHEN_DATA_EXISTS: path %s already holds data (%s)", root, file)
		}
	}
	return nil
}

// anyFile is a file below root outside the staging folder ("" when none,
// or when root does not exist).
func anyFile(root string) (string, error) {
	var found string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == root:
			return filepath.SkipAll
		case err != nil:
			return err
		case d.IsDir() && d.Name() == stagingDir:
			return filepath.SkipDir
		case !d.IsDir():
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	return found, err
}
