package tool

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// ask_user_question limits (tools.md §11.1).
const (
	askMaxQuestions = 4
	askMinOptions   = 2
	askMaxOptions   = 4
	askMaxHeader    = 16
	askMaxLabel     = 60
)

// The rows ask_user_question adds to a question, and the labels an option may not use.
const (
	askTypeRow = "Type something."
	askChatRow = "Chat about this"
	askDoneRow = "✓ Done selecting"
)

var askReserved = []string{"Other", askTypeRow, askChatRow, "Next"}

// AskUserQuestion is Atomic's ask_user_question tool (tools.md §11.1): up to four questions with
// two to four options each, asked through the session's dialogs — in the terminal UI its select
// and input dialogs, in RPC mode extension_ui_request select/input. A single-select question
// offers its options, a "Type something." row for a free answer (left out when an option has a
// preview) and a "Chat about this" row that ends the questionnaire and the turn; a multi-select
// question toggles options until "Done". Without a UI (print and JSON mode) it returns a result
// saying so, with details.error "no_ui".
type AskUserQuestion struct{}

// NewAskUserQuestion returns the ask_user_question tool.
func NewAskUserQuestion() *AskUserQuestion { return &AskUserQuestion{} }

// AskAnswer is one answer of AskDetails (Atomic's QuestionAnswer): Kind is "option" (Answer is
// the label), "custom" (the typed text), "chat" (the user wants to talk instead) or "multi"
// (Selected holds the labels, Answer is null).
type AskAnswer struct {
	QuestionIndex int      `json:"questionIndex"`
	Question      string   `json:"question"`
	Kind          string   `json:"kind"`
	Answer        *string  `json:"answer"`
	Selected      []string `json:"selected,omitempty"`
	Notes         string   `json:"notes,omitempty"`
	Preview       string   `json:"preview,omitempty"`
}

// AskDetails is details of an ask_user_question result (Atomic's QuestionnaireResult); Error is
// set when the questionnaire could not be shown: no_ui, no_questions, too_many_questions,
// duplicate_question, empty_options, duplicate_option_label or reserved_label.
type AskDetails struct {
	Answers   []AskAnswer `json:"answers"`
	Cancelled bool        `json:"cancelled"`
	Error     string      `json:"error,omitempty"`
}

// Name implements Tool.
func (*AskUserQuestion) Name() string { return "ask_user_question" }

// Label implements Labeler.
func (*AskUserQuestion) Label() string { return "Ask User Question" }

// Description implements Tool.
func (*AskUserQuestion) Description() string {
	return "Ask the user structured questions and wait for the answers: to learn preferences or " +
		"requirements, resolve an ambiguous instruction, or let the user decide between approaches.\n\n" +
		"- 1 to 4 questions per call, each with a short header (at most 16 characters) and 2 to 4 options " +
		"(label of at most 60 characters, and a description of what choosing it means).\n" +
		"- The user can always type their own answer (a \"Type something.\" row is added to single-select " +
		"questions without previews) or choose \"Chat about this\" to leave the questionnaire and talk; do " +
		"not add such rows yourself (the labels Other, Type something., Chat about this and Next are refused).\n" +
		"- multiSelect: true lets the user pick several options.\n" +
		"- An option's preview (markdown) is shown with it, for comparing concrete alternatives.\n" +
		"- To recommend an option, put it first and end its label with \"(Recommended)\"."
}

var askSchema = json.RawMessage(`{"type":"object","required":["questions"],"properties":{"questions":{"type":"array","minItems":1,"maxItems":4,` +
	`"description":"The questions to ask (1 to 4)","items":{"type":"object","required":["question","header","options"],"properties":{` +
	`"question":{"type":"string","description":"The full question, ending with a question mark"},` +
	`"header":{"type":"string","maxLength":16,"description":"A very short tag for the question (at most 16 characters), e.g. \"Library\""},` +
	`"options":{"type":"array","minItems":2,"maxItems":4,"description":"2 to 4 distinct choices; the free-text row is added automatically","items":{"type":"object","required":["label","description"],"properties":{` +
	`"label":{"type":"string","maxLength":60,"description":"The choice as the user sees it (1-5 words, at most 60 characters)"},` +
	`"description":{"type":"string","description":"What choosing this means, its trade-offs"},` +
	`"preview":{"type":"string","description":"Optional markdown shown with the option (a mockup, a code sample)"}}}},` +
	`"multiSelect":{"type":"boolean","default":false,"description":"Let the user choose several options"}}}}}}`)

// Parameters implements Tool.
func (*AskUserQuestion) Parameters() json.RawMessage { return askSchema }

// PromptSnippet implements Prompter.
func (*AskUserQuestion) PromptSnippet() string {
	return "Ask the user up to 4 multiple-choice questions (2-4 options each) when the request is ambiguous"
}

// PromptGuidelines implements Prompter.
func (*AskUserQuestion) PromptGuidelines() []string {
	return []string{
		"When the request leaves decisions open that you cannot make yourself, use ask_user_question, grouping every question (up to 4) into one call rather than several calls in a row.",
	}
}

type askOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Preview     string `json:"preview"`
}

type askQuestion struct {
	Question    string      `json:"question"`
	Header      string      `json:"header"`
	Options     []askOption `json:"options"`
	MultiSelect bool        `json:"multiSelect"`
}

type askParams struct {
	Questions []askQuestion `json:"questions"`
}

// validateAsk checks what the schema cannot; it returns the error code and text.
func validateAsk(qs []askQuestion) (code, text string) {
	switch {
	case len(qs) == 0:
		return "no_questions", "Error: At least one question is required"
	case len(qs) > askMaxQuestions:
		return "too_many_questions", "Error: At most 4 questions are allowed per invocation"
	}
	seen := map[string]bool{}
	for _, q := range qs {
		if seen[q.Question] {
			return "duplicate_question", "Error: Question text must be unique within an invocation"
		}
		seen[q.Question] = true
	}
	for _, q := range qs {
		if len(q.Options) < askMinOptions {
			return "empty_options", "Error: Each question requires at least 2 options"
		}
		labels := map[string]bool{}
		for _, o := range q.Options {
			if slices.Contains(askReserved, o.Label) {
				return "reserved_label", "Error: Option label is reserved (" + strings.Join(askReserved, ", ") + ")"
			}
			if labels[o.Label] {
				return "duplicate_option_label", "Error: Option labels must be unique within a question"
			}
			labels[o.Label] = true
		}
	}
	return "", ""
}

// Execute implements Tool. It never fails: a questionnaire that cannot be shown is a result
// whose details carry the error code.
func (t *AskUserQuestion) Execute(ctx context.Context, call Call, _ func(Result)) (Result, error) {
	p, err := decodeArgs[askParams]("ask_user_question", call.Args)
	if err != nil {
		return Result{}, err
	}
	var dialogs Dialogs
	if env := EnvFrom(ctx); env != nil {
		dialogs = env.Dialogs()
	}
	if dialogs == nil {
		return TextResult("Error: UI not available (running in non-interactive mode)", AskDetails{Answers: []AskAnswer{}, Cancelled: true, Error: "no_ui"}), nil
	}
	if code, text := validateAsk(p.Questions); code != "" {
		return TextResult(text, AskDetails{Answers: []AskAnswer{}, Cancelled: true, Error: code}), nil
	}
	answers := []AskAnswer{}
	for i, q := range p.Questions {
		a, ok := askOne(ctx, dialogs, i, q)
		if !ok || ctx.Err() != nil {
			if ctx.Err() != nil {
				return Result{}, ErrAborted
			}
			return TextResult("User declined to answer questions", AskDetails{Answers: answers, Cancelled: true}), nil
		}
		answers = append(answers, a)
		if a.Kind == "chat" {
			break // the user left the questionnaire
		}
	}
	return askResponse(answers), nil
}

// askTitle is the dialog title of a question.
func askTitle(q askQuestion) string {
	if q.Header == "" {
		return q.Question
	}
	return "[" + q.Header + "] " + q.Question
}

// askOne asks question i; ok is false when the user dismissed it.
func askOne(ctx context.Context, d Dialogs, i int, q askQuestion) (AskAnswer, bool) {
	a := AskAnswer{QuestionIndex: i, Question: q.Question}
	rowOf := func(o askOption) string {
		if o.Description == "" {
			return o.Label
		}
		return o.Label + " — " + o.Description
	}
	if q.MultiSelect {
		chosen := make([]bool, len(q.Options))
		for {
			rows := make([]string, 0, len(q.Options)+2)
			for k, o := range q.Options {
				box := "[ ] "
				if chosen[k] {
					box = "[x] "
				}
				rows = append(rows, box+rowOf(o))
			}
			rows = append(rows, askDoneRow, askChatRow)
			pick, ok := d.Select(ctx, askTitle(q)+" (choose any, then "+askDoneRow+")", rows)
			if !ok {
				return a, false
			}
			switch k := slices.Index(rows, pick); {
			case pick == askChatRow:
				a.Kind, a.Answer = "chat", ptr(askChatRow)
				return a, true
			case pick == askDoneRow:
				a.Kind, a.Selected = "multi", []string{}
				for k, o := range q.Options {
					if chosen[k] {
						a.Selected = append(a.Selected, o.Label)
					}
				}
				return a, true
			case k >= 0 && k < len(q.Options):
				chosen[k] = !chosen[k]
			default:
				return a, false // an answer that is none of the rows
			}
		}
	}
	rows := make([]string, 0, len(q.Options)+2)
	hasPreview := false
	for _, o := range q.Options {
		rows = append(rows, rowOf(o))
		hasPreview = hasPreview || o.Preview != ""
	}
	if !hasPreview {
		rows = append(rows, askTypeRow)
	}
	rows = append(rows, askChatRow)
	pick, ok := d.Select(ctx, askTitle(q), rows)
	if !ok {
		return a, false
	}
	switch k := slices.Index(rows, pick); {
	case pick == askChatRow:
		a.Kind, a.Answer = "chat", ptr(askChatRow)
	case pick == askTypeRow:
		text, ok := d.Input(ctx, q.Question, "Type your answer")
		if !ok {
			return a, false
		}
		a.Kind, a.Answer = "custom", ptr(text)
	case k >= 0 && k < len(q.Options):
		a.Kind, a.Answer, a.Preview = "option", ptr(q.Options[k].Label), q.Options[k].Preview
	default:
		return a, false
	}
	return a, true
}

func ptr[T any](v T) *T { return &v }

// askScalar is an answer's text in the result.
func askScalar(a AskAnswer) string {
	switch a.Kind {
	case "chat":
		if a.Answer != nil && strings.TrimSpace(*a.Answer) != "" && *a.Answer != askChatRow {
			return *a.Answer
		}
		return "User wants to chat about this. Stop the current task flow and wait for the user's next message."
	case "multi":
		if len(a.Selected) > 0 {
			return strings.Join(a.Selected, ", ")
		}
	default:
		if a.Answer != nil && *a.Answer != "" {
			return *a.Answer
		}
	}
	return "(no input)"
}

// askResponse is the result for the answers (Atomic's response envelope): the answers as
// `"question"="answer"` segments, or, when the user chose to chat, the directive to stop and
// wait, which ends the turn (Terminate).
func askResponse(answers []AskAnswer) Result {
	var segs []string
	chat := false
	for _, a := range answers {
		parts := []string{`"` + a.Question + `"="` + askScalar(a) + `"`}
		if a.Preview != "" {
			parts = append(parts, "selected preview: "+a.Preview)
		}
		if a.Notes != "" {
			parts = append(parts, "user notes: "+a.Notes)
		}
		segs = append(segs, strings.Join(parts, ". ")+".")
		chat = chat || a.Kind == "chat"
	}
	d := AskDetails{Answers: answers}
	if chat {
		r := TextResult("User wants to chat about this before choosing. Stop the current task flow and wait for the user's next message. "+strings.Join(segs, " "), d)
		r.Terminate = true
		return r
	}
	if len(segs) == 0 {
		return TextResult("User declined to answer questions", AskDetails{Answers: answers, Cancelled: true})
	}
	return TextResult("User has answered your questions: "+strings.Join(segs, " ")+" You can now continue with the user's answers in mind.", d)
}
