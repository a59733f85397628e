package command

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/export"
	"github.com/atomic-cli/atomic/internal/procgroup"
	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/model"
)

func init() {
	add(Command{Name: "share", Description: "Share session as a secret GitHub gist", Run: runShare})
}

const (
	// ghCheckTimeout bounds `gh auth status`.
	ghCheckTimeout = 30 * time.Second
	// gistTimeout bounds `gh gist create` (an upload).
	gistTimeout = 5 * time.Minute
	// ghOutputLimit caps what is kept of gh's stdout and stderr, each.
	ghOutputLimit = 64 << 10
	// defaultShareViewer is the viewer the share URL points at without <P>_SHARE_VIEWER_URL
	// (config-and-resources.md §15).
	defaultShareViewer = "https://pi.dev/session/"
)

// runShare is /share: with the GitHub CLI installed and logged in, the session is exported to
// HTML in a temporary folder and uploaded as a secret gist while a "Creating gist..." loader
// holds the editor slot (Esc cancels and kills gh); then the viewer URL and the gist URL are
// shown.
func runShare(h Host, _ string) tea.Cmd {
	st := h.Runtime().Session().Store()
	return func() tea.Msg {
		gh, err := exec.LookPath("gh")
		if err != nil {
			return notify("error", "GitHub CLI (gh) is not installed. Install it from https://cli.github.com/")
		}
		ctx, cancel := context.WithTimeout(context.Background(), ghCheckTimeout)
		_, _, err = runGH(ctx, gh, "auth", "status")
		cancel()
		if err != nil {
			return notify("error", "GitHub CLI is not logged in. Run 'gh auth login' first.")
		}
		dir, err := os.MkdirTemp("", "atomic-share-")
		if err != nil {
			return notify("error", "Failed to export session: "+err.Error())
		}
		file, err := export.Session(st, filepath.Join(dir, "session.html"))
		if err != nil {
			os.RemoveAll(dir)
			return notify("error", "Failed to export session: "+err.Error())
		}
		return later(func(h Host) tea.Cmd {
			ctx, cancel := context.WithTimeout(context.Background(), gistTimeout)
			loader := &loaderDialog{th: slotTheme(h), keys: slotKeys(h), title: "Creating gist...", cancel: cancel}
			h.ShowDialog(loader)
			return func() tea.Msg {
				defer os.RemoveAll(dir)
				defer cancel()
				out, errOut, err := runGH(ctx, gh, "gist", "create", "--public=false", file)
				cancelled := loader.cancelled()
				return later(func(h Host) tea.Cmd {
					loader.close()
					switch {
					case cancelled:
						h.Notify("info", "Share cancelled")
					case err != nil:
						msg := strings.TrimSpace(errOut)
						if msg == "" {
							msg = err.Error()
						}
						h.Notify("error", "Failed to create gist: "+msg)
					default:
						url := lastLine(out)
						id := url[strings.LastIndex(url, "/")+1:]
						if url == "" || id == "" {
							h.Notify("error", "Failed to create gist: gh printed no gist URL")
							return nil
						}
						viewer := model.Getenv("SHARE_VIEWER_URL")
						if viewer == "" {
							viewer = defaultShareViewer
						}
						h.Notify("info", "Share URL: "+viewer+"#"+id+"\nGist: "+url)
					}
					return nil
				})
			}
		})
	}
}

// lastLine is the last non-empty line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// runGH runs gh with args until it ends or ctx is done (then gh and whatever it started are
// killed; they also die with atomic). It returns gh's stdout and stderr, each cut at
// ghOutputLimit.
func runGH(ctx context.Context, gh string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.CommandContext(ctx, gh, args...)
	var out, errOut capped
	out.max, errOut.max = ghOutputLimit, ghOutputLimit
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = 5 * time.Second
	if g, gerr := procgroup.New(); gerr == nil {
		cmd.SysProcAttr = g.Attr()
		cmd.Cancel = func() error { g.Kill(); return nil }
		defer g.Kill()
	}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return out.String(), errOut.String(), fmt.Errorf("gh %s: %w", strings.Join(args[:min(2, len(args))], " "), err)
	}
	return out.String(), errOut.String(), nil
}

// capped is a buffer that keeps the first max bytes written to it and drops the rest.
type capped struct {
	bytes.Buffer
	max int
}

// Write implements io.Writer; it never fails, so the child is not stopped by a full buffer.
func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// loaderDialog holds the editor slot while a cancellable job runs: its title and an Esc hint.
// Esc cancels the job (the dialog closes when the job reports back through close).
type loaderDialog struct {
	th     slot.Theme
	keys   slot.Keys
	title  string
	cancel context.CancelFunc
	done   bool        // UI goroutine only
	user   atomic.Bool // the user cancelled (read by the job's goroutine)
}

// Render implements component.Component.
func (d *loaderDialog) Render(width int) []string {
	hint := slot.Hint(d.th, d.keys.Label(slot.SelectCancel), "cancel")
	return slot.Fit(slot.Frame(d.th, width, d.title, nil, hint), width)
}

// HandleKey implements component.Dialog: the cancel key stops the job.
func (d *loaderDialog) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	if d.keys.Is(k, slot.SelectCancel) && !d.done {
		d.user.Store(true)
		d.cancel()
		d.done = true
	}
	return nil
}

// cancelled reports whether the user cancelled (called by the job after it ended).
func (d *loaderDialog) cancelled() bool { return d.user.Load() }

// close removes the dialog (the job ended).
func (d *loaderDialog) close() { d.done = true }

// Done implements component.Dialog.
func (d *loaderDialog) Done() bool { return d.done }
