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
		RunE: s.with(traceStore, func(cmd *cobra.Command, args []string, o *opened) error {
			path := args[0]
			var b []byte
			var err error
			if path == "-" {
				b, err = io.ReadAll(s.stdin)
			} else {
				b, err = os.ReadFile(path)
			}
			if err != nil {
				return fmt.Errorf("import: %w", err)
			}
			var doc trace.Document
			if err := json.Unmarshal(b, &doc); err != nil {
				return fmt.Errorf("import %s: not a trace document: %w", path, err)
			}
			if err := doc.Validate(); err != nil { // said here, once, not as the store's "import: …"
				return fmt.Errorf("import %s: %w", path, err)
			}
			id, err := o.store.Import(cmd.Context(), doc)
			if err != nil {
				return fmt.Errorf("import %s: %w", path, err)
			}
			fmt.Fprintln(s.stdout, id)
			return nil
		}),
	}
}
