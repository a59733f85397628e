package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fixture"
)

// TestMessageRoundTripFixtures decodes every message pi 0.73.1 wrote in the fixture sessions and
// JSON events and re-encodes it: the bytes must be identical (field order, empty text, numbers).
func TestMessageRoundTripFixtures(t *testing.T) {
	files, _ := filepath.Glob(fixture.Path("*", "session.jsonl"))
	if len(files) == 0 {
		t.Fatal("no fixture sessions found")
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var line struct {
				Message json.RawMessage `json:"message"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Message == nil {
				continue
			}
			var m Message
			if err := json.Unmarshal(line.Message, &m); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			got, err := m.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, line.Message) {
				t.Errorf("%s: round trip differs\n got %s\nwant %s", f, got, line.Message)
			}
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d messages checked", n)
	}
}

func TestMessageStringContentAndExtra(t *testing.T) {
	in := `{"role":"user","content":"plain <b>","timestamp":5,"zzz":{"a":1}}`
	var m Message
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if !m.ContentIsString || TextOf(m.Content, "") != "plain <b>" {
		t.Fatalf("string content lost: %+v", m)
	}
	out, _ := m.AppendJSON(nil)
	if string(out) != in {
		t.Fatalf("got %s", out)
	}
	var legacy Message
	json.Unmarshal([]byte(`{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":1}`), &legacy)
	if legacy.Role != RoleCustom {
		t.Fatalf("hookMessage not migrated: %q", legacy.Role)
	}
}

func TestEventJSONCarriesNoPartial(t *testing.T) {
	b := NewBuilder(&Model{ID: "m", Provider: "p", API: "a"}, func(e Event) {
		out, err := e.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "partial") {
			t.Errorf("%s carries the partial message: %s", e.Type, out)
		}
	})
	i := b.StartText()
	b.AppendText(i, "hi")
	b.Finish(StopStop, nil)
}

func TestBuilderMalformedToolArguments(t *testing.T) {
	b := NewBuilder(nil, nil)
	i := b.StartToolCall("c1", "bash")
	b.AppendToolArgs(i, `{"command": "ls"`)
	m := b.Finish(StopToolUse, nil)
	c := m.Content[0]
	if c.ArgumentsError == "" || len(c.Arguments) != 0 {
		t.Fatalf("malformed arguments not reported: %+v", c)
	}
	if !strings.Contains(c.ArgumentsError, "bash") {
		t.Errorf("error does not name the tool: %s", c.ArgumentsError)
	}
}

func TestAppendJSONStringMatchesStringify(t *testing.T) {
	for in, want := range map[string]string{
		"a<b>&c":    `"a<b>&c"`,
		"q\"\\\n\t": `"q\"\\\n\t"`,
		"\x01":      `"\u0001"`,
		"é":         `"é"`,
	} {
		if got := string(AppendJSONString(nil, in)); got != want {
			t.Errorf("%q: got %s want %s", in, got, want)
		}
	}
}
