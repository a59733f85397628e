package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// schemaCache holds compiled argument schemas keyed by the schema's bytes, so a tool registered
// again with the same schema is compiled once.
var schemaCache sync.Map // string -> *jsonschema.Schema or error

func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	key := string(raw)
	if v, ok := schemaCache.Load(key); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(*jsonschema.Schema), nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		err = fmt.Errorf("invalid parameter schema: %w", err)
		schemaCache.Store(key, err)
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool-parameters.json", doc); err != nil {
		schemaCache.Store(key, err)
		return nil, err
	}
	sch, err := c.Compile("tool-parameters.json")
	if err != nil {
		err = fmt.Errorf("invalid parameter schema: %w", err)
		schemaCache.Store(key, err)
		return nil, err
	}
	schemaCache.Store(key, sch)
	return sch, nil
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
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Sprintf("Validation failed for tool %q: %v", toolName, err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Sprintf("Validation failed for tool %q:\n%s\n\nReceived arguments:\n%s", toolName, describeValidation(err), indentJSON(b))
	}
	return ""
}

func describeValidation(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return "  - " + err.Error()
	}
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			if loc == "/" {
				loc = "root"
			}
			lines = append(lines, fmt.Sprintf("  - %s: %s", loc, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(lines)
	return strings.Join(lines, "\n")
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
