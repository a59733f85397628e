// Command searchtool runs one call of atomic's grep or find tool against a directory and writes
// the tool's text to stdout; bench/search.sh times it against ripgrep and fd. With -tool floor it
// only walks the tree (fastwalk, no ignore matching, nothing read), and with -tool floor-read it
// also reads every regular file once: the floors the tools are measured against.
//
// searchtool imports tool and nothing else of atomic; nothing imports it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
	"github.com/charlievieth/fastwalk"
)

func main() {
	which := flag.String("tool", "grep", "grep, find, floor or floor-read")
	pattern := flag.String("pattern", "", "grep regular expression or find glob")
	literal := flag.Bool("literal", false, "grep: the pattern is plain text")
	limit := flag.Int("limit", 0, "result limit (0: the tool's default)")
	ignoreCase := flag.Bool("i", false, "grep: ignore case")
	glob := flag.String("glob", "", "grep: only files matching this glob")
	contextLines := flag.Int("context", 0, "grep: context lines")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: searchtool [-tool grep|find|floor|floor-read] [-pattern P] [-literal] [-limit N] DIR")
		os.Exit(2)
	}
	dir := flag.Arg(0)
	switch *which {
	case "floor", "floor-read":
		n, err := floor(dir, *which == "floor-read")
		if err != nil {
			fmt.Fprintln(os.Stderr, "searchtool:", err)
			os.Exit(1)
		}
		fmt.Println(n, "entries")
		return
	}
	args := map[string]any{"pattern": *pattern}
	if *limit > 0 {
		args["limit"] = float64(*limit)
	}
	var t tool.Tool
	switch *which {
	case "grep":
		args["literal"] = *literal
		args["ignoreCase"] = *ignoreCase
		args["glob"] = *glob
		args["context"] = float64(*contextLines)
		t = tool.NewGrep(dir, tool.GrepOptions{})
	case "find":
		t = tool.NewFind(dir, tool.FindOptions{})
	default:
		fmt.Fprintln(os.Stderr, "searchtool: unknown -tool", *which)
		os.Exit(2)
	}
	r, err := t.Execute(context.Background(), tool.Call{ID: "bench", Name: t.Name(), Args: args}, func(tool.Result) {})
	if err != nil {
		fmt.Fprintln(os.Stderr, "searchtool:", err)
		os.Exit(1)
	}
	fmt.Println(llm.TextOf(r.Content, "\n"))
}

// floor walks dir in parallel without any filtering and returns the number of entries; with
// read it also reads each regular file whole.
func floor(dir string, read bool) (int64, error) {
	var n atomic.Int64
	err := fastwalk.Walk(&fastwalk.Config{}, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		n.Add(1)
		if read && d.Type().IsRegular() {
			_, _ = os.ReadFile(p)
		}
		return nil
	})
	return n.Load(), err
}
