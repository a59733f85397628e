package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaCache holds resolved argument schemas keyed by the schema's bytes, so a tool registered
// again with the same schema is resolved once.
var schemaCache sync.Map // string -> *jsonschema.Resolved or error

func compileSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	key := string(raw)
	if v, ok := schemaCache.Load(key); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(*jsonschema.Resolved), nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		err = fmt.Errorf("invalid parameter schema: %w", err)
		schemaCache.Store(key, err)
		return nil, err
	}
	r, err := s.Resolve(nil)
	if err != nil {
		err = fmt.Errorf("invalid parameter schema: %w", err)
		schemaCache.Store(key, err)
		return nil, err
	}
	schemaCache.Store(key, r)
	return r, nil
}

// validateArgs checks args against the tool's JSON Schema, first coercing scalar strings that a
// model sent for number, integer or boolean properties (a common model slip that the schema
// makes unambiguous). It returns a message the model can act on, or "" when args are valid.
func validateArgs(toolName string, schema json.RawMessage, args map[string]any) string {
	if len(schema) == 0 {
		return ""
	}
	sch, err := compileSchema(schema)
	if err != nil {
		return fmt.Sprintf("Tool %s has an invalid parameter schema: %v", toolName, err)
	}
	coerceArgs(schema, args)
	// The validator wants the values encoding/json produces; round-trip to normalise Go types
	// that tools or hooks may have put in (ints, typed slices).
	b, err := json.Marshal(args)
	if err != nil {
		return fmt.Sprintf("Validation failed for tool %q: arguments are not JSON: %v", toolName, err)
	}
	var inst any
	if err := json.Unmarshal(b, &inst); err != nil {
		return fmt.Sprintf("Validation failed for tool %q: %v", toolName, err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Sprintf("Validation failed for tool %q: %s\n\nReceived arguments:\n%s", toolName, strings.TrimPrefix(err.Error(), "validating root: "), indentJSON(b))
	}
	return ""
}

func indentJSON(b []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, b, "", "  ") != nil {
		return string(b)
	}
	return out.String()
}

// coerceArgs converts top-level string values to the number/integer/boolean type their property
// schema declares, when the string parses cleanly as that type.
func coerceArgs(schema json.RawMessage, args map[string]any) {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	for name, prop := range s.Properties {
		str, ok := args[name].(string)
		if !ok {
			continue
		}
		typ, _ := prop.Type.(string)
		switch typ {
		case "number", "integer":
			var f float64
			if err := json.Unmarshal([]byte(strings.TrimSpace(str)), &f); err == nil {
				if typ == "number" || f == float64(int64(f)) {
					args[name] = f
				}
			}
		case "boolean":
			switch str {
			case "true":
				args[name] = true
			case "false":
				args[name] = false
			}
		}
	}
}
