package ext

import (
	"context"

	"github.com/atomic-cli/atomic/store"
)

// HostSessionPickerRequest is ctx.ui.hostSessionPicker's request (seed 004, "Host-native
// session picker"): the rows to list, newest first as given.
type HostSessionPickerRequest struct {
	// Rows are the sessions shown; each pick answers its Path.
	Rows []store.SessionInfo
	// OnDelete, when set, is called (on a goroutine of its own) with a row's path after the user
	// confirmed Ctrl+D on it. The picker keeps the row: the extension owns deletion and answers
	// with the handle's Update (the row gone) or Error. Nil: the picker says deletion is not
	// supported for it.
	OnDelete func(path string)
	// OnHandle, when set, receives the picker's handle once, before HostSessionPicker shows it.
	OnHandle func(h HostSessionPickerHandle)
	// ShowRenameHint adds the rename key to the picker's hints (Atomic's showRenameHint; the
	// picker itself renames nothing).
	ShowRenameHint bool
}

// HostSessionPickerHandle is the live control of an open host session picker (seed 004's
// handle.update / handle.error). Its methods are safe from any goroutine; calls after the picker
// closed do nothing.
type HostSessionPickerHandle interface {
	// Update replaces the rows; the search, filters and the selected row (when still listed) stay.
	Update(rows []store.SessionInfo)
	// Error shows message in the picker (a failed delete, a failed load).
	Error(message string)
}

// HostSessionPickerUI is the optional capability of a UI that draws the built-in session
// selector natively for an extension (the interactive mode; absent in print, JSON and RPC mode,
// where ctx.ui.hostSessionPicker is undefined). Reach it with UIAs.
type HostSessionPickerUI interface {
	// HostSessionPicker shows req's rows in the session selector and blocks until the user picks
	// one (its path, true), cancels ("", false) or ctx ends (the picker closes; "", false).
	HostSessionPicker(ctx context.Context, req HostSessionPickerRequest) (path string, ok bool)
}

// Field types of a host-native input form (HostInputField.Type; seed 004 "Host-native input
// form"). Values are raw strings whatever the type: the extension converts them.
const (
	FieldString  = "string"
	FieldText    = "text" // multi-line
	FieldNumber  = "number"
	FieldInteger = "integer"
	FieldBoolean = "boolean" // "true" or "false"
	FieldSelect  = "select"  // one of Choices
)

// HostInputField is one field of ctx.ui.hostInputForm (Atomic's HostInputFormField).
type HostInputField struct {
	// Name keys the field's value in the result.
	Name string `json:"name"`
	// Type is one of the Field* constants; an unknown type is edited as FieldString.
	Type        string   `json:"type"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Choices     []string `json:"choices,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	// InitialValue is the raw value shown first.
	InitialValue string `json:"initialValue"`
}

// HostInputFormRequest is ctx.ui.hostInputForm's request.
type HostInputFormRequest struct {
	Title  string           `json:"title"`
	Fields []HostInputField `json:"fields"`
	// Heading labels the panel's top border; "" is "WORKFLOW INPUTS" (Atomic's documented default).
	Heading string `json:"heading,omitempty"`
	// SubmitLabel is the submit button; "" is "[ Run workflow ]".
	SubmitLabel string `json:"submitLabel,omitempty"`
}

// Defaults of HostInputFormRequest (Atomic's ui-types.ts documentation).
const (
	DefaultInputFormHeading = "WORKFLOW INPUTS"
	DefaultInputFormSubmit  = "[ Run workflow ]"
)

// HostInputFormUI is the optional capability of a UI that draws a structured input form
// natively (the interactive mode; absent in print, JSON and RPC mode, where
// ctx.ui.hostInputForm is undefined). Reach it with UIAs.
type HostInputFormUI interface {
	// HostInputForm shows the form in the editor slot and blocks until the user submits it (the
	// raw values by field name, true) or cancels with Escape or Ctrl+C, or ctx ends (nil, false).
	// Submitting checks required fields, select choices and numbers first and keeps the form
	// open on the first invalid field.
	HostInputForm(ctx context.Context, req HostInputFormRequest) (values map[string]string, ok bool)
}
