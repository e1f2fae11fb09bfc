package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentry/agentry/trace"
)

// tracesImportCommand is `agentry traces import FILE` ("-" for stdin): a
// document `traces export` wrote becomes a run of this database; its new
// id is printed.
func (s *session) tracesImportCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE",
		Short: "add a run from a document `traces export` wrote (FILE or - for stdin)",
		Args:  oneArg("needs exactly one FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			doc, err := s.readTraceDocument(args[0])
			if err != nil {
				return err
			}
			// The document is read first, so a file that is not one leaves no new database.
			o, err := s.open(cmd, traceStore)
			if err != nil {
				return err
			}
			defer o.Close()
			id, err := o.store.Import(cmd.Context(), doc)
			if err != nil {
				return fmt.Errorf("import %s: %w", args[0], err)
			}
			fmt.Fprintln(s.stdout, id)
			return nil
		},
	}
}

// readTraceDocument reads and checks the document at path ("-": stdin).
func (s *session) readTraceDocument(path string) (trace.Document, error) {
	var doc trace.Document
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(s.stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return doc, fmt.Errorf("import: %w", err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("import %s: not a trace document: %w", path, err)
	}
	if err := doc.Validate(); err != nil { // said here, once, not as the store's "import: …"
		return doc, fmt.Errorf("import %s: %w", path, err)
	}
	return doc, nil
}
