package tool

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"unicode/utf16"
)

// WriteOptions configure the write tool.
type WriteOptions struct {
	// Operations reach the files; nil means LocalFS.
	Operations WriteOperations
	// Queue serialises mutations per file; nil means DefaultMutationQueue.
	Queue *MutationQueue
}

// Write is the write tool (tools.md §7.1): it creates or overwrites a file, creating missing
// parent directories, under the file's mutation queue.
type Write struct {
	cwd   string
	ops   WriteOperations
	queue *MutationQueue
}

// NewWrite returns the write tool for the session working directory cwd.
func NewWrite(cwd string, opts WriteOptions) *Write {
	if opts.Operations == nil {
		opts.Operations = LocalFS{}
	}
	if opts.Queue == nil {
		opts.Queue = DefaultMutationQueue
	}
	return &Write{cwd: cwd, ops: opts.Operations, queue: opts.Queue}
}

var writeSchema = json.RawMessage(`{"type":"object","required":["path","content"],"properties":{` +
	`"path":{"type":"string","description":"Path to the file to write (relative or absolute)"},` +
	`"content":{"type":"string","description":"Content to write to the file"}}}`)

// Name implements Tool.
func (*Write) Name() string { return "write" }

// Label implements Labeler.
func (*Write) Label() string { return "write" }

// Description implements Tool.
func (*Write) Description() string {
	return "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. " +
		"Automatically creates parent directories."
}

// Parameters implements Tool.
func (*Write) Parameters() json.RawMessage { return writeSchema }

// PromptSnippet implements Prompter.
func (*Write) PromptSnippet() string { return "Create or overwrite files" }

// PromptGuidelines implements Prompter.
func (*Write) PromptGuidelines() []string {
	return []string{"Use write only for new files or complete rewrites."}
}

type writeParams struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Execute implements Tool. The text is "Successfully wrote N bytes to <path>" where N counts
// UTF-16 code units of the content, as pi's content.length does (tools.md §7.1); details are
// empty. Errors: directory creation or write failures, ErrAborted.
func (t *Write) Execute(ctx context.Context, call Call, _ func(Result)) (Result, error) {
	p, err := decodeArgs[writeParams]("write", call.Args)
	if err != nil {
		return Result{}, err
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	abs := ResolveToCwd(p.Path, t.cwd)
	err = t.queue.Do(ctx, abs, func() error {
		if err := checkAborted(ctx); err != nil {
			return err
		}
		if err := t.ops.MkdirAll(ctx, filepath.Dir(abs)); err != nil {
			return err
		}
		if err := checkAborted(ctx); err != nil {
			return err
		}
		return t.ops.WriteFile(ctx, abs, []byte(p.Content))
	})
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ErrAborted) && errors.Is(err, context.Cause(ctx)) {
			return Result{}, ErrAborted
		}
		return Result{}, err
	}
	return TextResult("Successfully wrote "+strconv.Itoa(utf16Len(p.Content))+" bytes to "+p.Path, nil), nil
}

// utf16Len is the length of s in UTF-16 code units (JavaScript's string length).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
