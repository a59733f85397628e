package cli

import (
	"errors"
	"fmt"

	"github.com/atomic-cli/atomic/export"
)

// runExport is `atomic --export <session.jsonl> [out.html]` (rpc-and-json.md §9): it writes the
// session's current branch (ending at the file's last entry) as a self-contained HTML page and
// prints "Exported to: <path>". The optional positional argument is the output file; without it
// the page is atomic-session-<base>.html in the working directory (export.DefaultOutputPath).
// No model, credentials or extensions are needed. Any failure (missing or invalid session file,
// unwritable output) is an error: run's caller prints "Error: …" on stderr and exits 1.
func runExport(o *Options) error {
	if len(o.Files) > 0 || len(o.Messages) > 1 {
		return errors.New("--export takes a session file and at most one output path: atomic --export <session.jsonl> [out.html]")
	}
	out := ""
	if len(o.Messages) == 1 {
		out = o.Messages[0]
	}
	path, err := export.FromFile(o.Export, out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.Stdout, "Exported to: %s\n", path)
	return err
}
