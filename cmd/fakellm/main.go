// Command fakellm serves a fake LLM script on a loopback port, for trying atomic (or any client of
// the Anthropic Messages, OpenAI Chat Completions or OpenAI Responses APIs) by hand:
//
//	fakellm [-addr 127.0.0.1:0] scenario.json
//	fakellm -replay-out replay.json [-api anthropic-messages] scenario.json
//
// The scenario is a fakellm script (see internal/fakellm.Script), for example a pi fixture
// scenario. fakellm prints the base URL, logs one line per request to stderr, and runs until
// interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm/replay"
)

// options are the parsed command line.
type options struct {
	addr      string
	scenario  string
	replayOut string // write a replay file instead of serving
	api       string // the API of the replay file
}

func main() {
	opts, err := parse(os.Args[1:], os.Stderr)
	if err != nil {
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, opts, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func parse(args []string, stderr io.Writer) (options, error) {
	var opts options
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opts.addr, "addr", "127.0.0.1:0", "address to listen on")
	fs.StringVar(&opts.replayOut, "replay-out", "", "render the scenario into this replay file instead of serving it")
	fs.StringVar(&opts.api, "api", "anthropic-messages", "API of the replay file written by -replay-out")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: fakellm [-addr host:port] scenario.json\n       fakellm -replay-out replay.json [-api API] scenario.json")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return opts, errors.New("fakellm: want exactly one scenario file")
	}
	opts.scenario = fs.Arg(0)
	return opts, nil
}

// run serves the scenario until ctx is done.
func run(ctx context.Context, opts options, stdout, stderr io.Writer) error {
	script, err := fakellm.LoadScenario(opts.scenario)
	if err != nil {
		return err
	}
	if opts.replayOut != "" {
		f, err := replay.FromScript(opts.api, script)
		if err != nil {
			return err
		}
		if err := f.Save(opts.replayOut); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "fakellm: wrote %s (%d %s turns)\n", opts.replayOut, len(f.Turns), opts.api)
		return nil
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return fmt.Errorf("fakellm: listen on %s: %w", opts.addr, err)
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "fakellm: serving %s (%d turns) at %s\n", opts.scenario, len(script.Turns), url)
	fmt.Fprintf(stdout, "  anthropic-messages base URL: %s\n  openai base URL:             %s/v1\n", url, url)

	logger := log.New(stderr, "fakellm: ", log.Ltime)
	srv := &http.Server{
		Handler:           logRequests(fakellm.NewHandler(script), logger),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		<-done
		return nil
	case err := <-done:
		return fmt.Errorf("fakellm: serve: %w", err)
	}
}

// logRequests logs one line per request: method, path, status, and the turn played.
func logRequests(h http.Handler, logger *log.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		outcome := "dropped"
		defer func() {
			turn := w.Header().Get(fakellm.TurnHeader)
			if turn == "" {
				turn = "-"
			}
			logger.Printf("%s %s -> %d turn %s %s", r.Method, r.URL.Path, sw.status, turn, outcome)
		}()
		h.ServeHTTP(sw, r)
		outcome = "done"
	})
}

// statusWriter remembers the status written; Unwrap lets http.ResponseController flush through.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader records code and passes it on.
func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap returns the wrapped writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
