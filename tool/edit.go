package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
)

// EditOptions configure the edit tool.
type EditOptions struct {
	// Operations reach the files; nil means LocalFS.
	Operations EditOperations
	// Queue serialises mutations per file; nil means DefaultMutationQueue.
	Queue *MutationQueue
}

// EditDetails is details of a successful edit (tools.md §6.2, §6.3).
type EditDetails struct {
	// Diff is the display diff of DisplayDiff.
	Diff string `json:"diff"`
	// FirstChangedLine is the 1-based line of the first change in the new file.
	FirstChangedLine int `json:"firstChangedLine,omitempty"`
}

// Edit is the edit tool (tools.md §6.2, later pi): exact-text replacements edits[] matched against
// the original file, under the file's mutation queue.
type Edit struct {
	cwd   string
	ops   EditOperations
	queue *MutationQueue
}

// NewEdit returns the edit tool for the session working directory cwd.
func NewEdit(cwd string, opts EditOptions) *Edit {
	if opts.Operations == nil {
		opts.Operations = LocalFS{}
	}
	if opts.Queue == nil {
		opts.Queue = DefaultMutationQueue
	}
	return &Edit{cwd: cwd, ops: opts.Operations, queue: opts.Queue}
}

var editSchema = json.RawMessage(`{"type":"object","required":["path","edits"],"properties":{` +
	`"path":{"type":"string","description":"Path to the file to edit (relative or absolute)"},` +
	`"edits":{"type":"array","items":{"type":"object","required":["oldText","newText"],"properties":{` +
	`"oldText":{"type":"string","description":"Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."},` +
	`"newText":{"type":"string","description":"Replacement text for this targeted edit."}},"additionalProperties":false},` +
	`"description":"One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead."}},` +
	`"additionalProperties":false}`)

// Name implements Tool.
func (*Edit) Name() string { return "edit" }

// Label implements Labeler.
func (*Edit) Label() string { return "edit" }

// Description implements Tool.
func (*Edit) Description() string {
	return "Edit a single file using exact text replacement. Every edits[].oldText must match a " +
		"unique, non-overlapping region of the original file. If two changes affect the same block " +
		"or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not " +
		"include large unchanged regions just to connect distant changes."
}

// Parameters implements Tool.
func (*Edit) Parameters() json.RawMessage { return editSchema }

// PromptSnippet implements Prompter.
func (*Edit) PromptSnippet() string {
	return "Make precise file edits with exact text replacement, including multiple disjoint edits in one call"
}

// PromptGuidelines implements Prompter.
func (*Edit) PromptGuidelines() []string {
	return []string{
		"Use edit for precise changes (edits[].oldText must match exactly)",
		"When changing multiple separate locations in one file, use one edit call with multiple entries in edits[] instead of multiple edit calls",
		"Each edits[].oldText is matched against the original file, not after earlier edits are applied. Do not emit overlapping or nested edits. Merge nearby changes into one edit.",
		"Keep edits[].oldText as small as possible while still being unique in the file. Do not pad with large unchanged regions.",
	}
}

// PrepareArguments implements ArgumentPreparer: an edits value sent as a JSON string is parsed,
// and legacy top-level oldText/newText strings are appended to edits (tools.md §6.2).
func (*Edit) PrepareArguments(args map[string]any) map[string]any {
	var parsed []any
	if s, ok := args["edits"].(string); !ok || json.Unmarshal([]byte(s), &parsed) != nil {
		parsed = nil
	}
	oldText, ok1 := args["oldText"].(string)
	newText, ok2 := args["newText"].(string)
	legacy := ok1 && ok2
	if parsed == nil && !legacy {
		return args
	}
	out := maps.Clone(args)
	if parsed != nil {
		out["edits"] = parsed
	}
	if legacy {
		var list []any
		switch l := out["edits"].(type) {
		case nil:
		case []any:
			list = append(list, l...)
		default: // a typed slice from a Go caller
			if b, err := json.Marshal(l); err == nil {
				_ = json.Unmarshal(b, &list)
			}
		}
		out["edits"] = append(list, map[string]any{"oldText": oldText, "newText": newText})
		delete(out, "oldText")
		delete(out, "newText")
	}
	return out
}

type editParams struct {
	Path  string        `json:"path"`
	Edits []Replacement `json:"edits"`
}

// Execute implements Tool. Errors: the messages of ApplyReplacements, "Could not edit file: P.
// Error code: C." when the file cannot be read or written, an empty edits list, ErrAborted.
func (t *Edit) Execute(ctx context.Context, call Call, _ func(Result)) (Result, error) {
	p, err := decodeArgs[editParams]("edit", t.PrepareArguments(call.Args))
	if err != nil {
		return Result{}, err
	}
	if len(p.Edits) == 0 {
		return Result{}, errors.New("Edit tool input is invalid. edits must contain at least one replacement.")
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	abs := ResolveToCwd(p.Path, t.cwd)
	var res Result
	err = t.queue.Do(ctx, abs, func() error {
		if err := checkAborted(ctx); err != nil {
			return err
		}
		fail := func(err error) error {
			if errors.Is(err, ErrNotRegular) || errors.Is(err, ErrFileTooLarge) {
				return fmt.Errorf("Could not edit file: %s. %w", p.Path, err)
			}
			return fmt.Errorf("Could not edit file: %s. Error code: %s.", p.Path, errnoName(err))
		}
		if err := t.ops.Access(ctx, abs, AccessRead|AccessWrite); err != nil {
			return fail(err)
		}
		raw, err := t.ops.ReadFile(ctx, abs)
		if err != nil {
			return fail(err)
		}
		outcome, err := ApplyReplacements(string(raw), p.Edits, p.Path)
		if err != nil {
			return err
		}
		if err := checkAborted(ctx); err != nil {
			return err
		}
		if err := t.ops.WriteFile(ctx, abs, []byte(outcome.Content)); err != nil {
			return fail(err)
		}
		diff, first := DisplayDiff(outcome.Before, outcome.After)
		res = TextResult("Successfully replaced "+strconv.Itoa(len(p.Edits))+" block(s) in "+p.Path+".",
			EditDetails{Diff: diff, FirstChangedLine: first})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ErrAborted) && errors.Is(err, context.Cause(ctx)) {
			return Result{}, ErrAborted
		}
		return Result{}, err
	}
	return res, nil
}
