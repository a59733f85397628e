package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// ErrAborted is returned by a built-in tool whose context was cancelled before it started, or
// before a file operation that can still be skipped (tools.md §1). Its text is what the model sees.
var ErrAborted = errors.New("Operation aborted")

// decodeArgs decodes a call's arguments into the tool's typed parameters.
func decodeArgs[T any](tool string, args map[string]any) (T, error) {
	var p T
	b, err := json.Marshal(args)
	if err != nil {
		return p, fmt.Errorf("%s: invalid arguments: %w", tool, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%s: invalid arguments: %w", tool, err)
	}
	return p, nil
}

// intArg converts an optional JSON number to an int, truncating a fraction toward zero and
// clamping to the int range; def is used when n is nil.
func intArg(n *float64, def int) int {
	if n == nil || math.IsNaN(*n) {
		return def
	}
	v := math.Trunc(*n)
	switch {
	case v >= math.MaxInt32:
		return math.MaxInt32
	case v <= math.MinInt32:
		return math.MinInt32
	}
	return int(v)
}

// checkAborted returns ErrAborted when ctx is done.
func checkAborted(ctx context.Context) error {
	if ctx.Err() != nil {
		return ErrAborted
	}
	return nil
}
