package model

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// TestCatalogGenerated: catalog_gen.go is what `go generate` makes of catalog.json.
func TestCatalogGenerated(t *testing.T) {
	b, err := os.ReadFile("catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []llm.Model
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	got := BuiltinModels()
	if len(got) != len(want) {
		t.Fatalf("catalog_gen.go has %d models, catalog.json %d: run go generate ./model", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(*got[i], want[i]) {
			t.Errorf("model %d: generated %+v, catalog.json %+v: run go generate ./model", i, *got[i], want[i])
		}
	}
	for _, id := range []string{"claude-sonnet-4-6", "claude-opus-4-7", "gpt-5.2", "gemini-2.5-pro"} {
		if !contains(got, id) {
			t.Errorf("%s is not in the catalog", id)
		}
	}
}

func contains(ms []*llm.Model, id string) bool {
	for _, m := range ms {
		if m.ID == id {
			return true
		}
	}
	return false
}

// TestCatalogCoversPi: every Anthropic, OpenAI and Google model of the pi installed for the compat
// tests (npm ci --prefix compat/pi) is in the built-in catalog with pi's limits.
func TestCatalogCoversPi(t *testing.T) {
	src := filepath.Join("..", "compat", "pi", "node_modules", "@mariozechner", "pi-ai", "dist", "models.generated.js")
	if _, err := os.Stat(src); err != nil {
		t.Skip("compat/pi/node_modules is absent: run npm ci --prefix compat/pi")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	abs, _ := filepath.Abs(src)
	script := `import(require("url").pathToFileURL(process.argv[1]).href).then(({MODELS}) => { const out = []; for (const p of ["anthropic","openai","google"]) for (const m of Object.values(MODELS[p])) out.push([p, m.id, m.contextWindow, m.maxTokens]); console.log(JSON.stringify(out)); })`
	b, err := exec.Command(node, "-e", script, abs).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var pi [][4]any
	if err := json.Unmarshal(b, &pi); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*llm.Model{}
	for _, m := range BuiltinModels() {
		byKey[m.Provider+"/"+m.ID] = m
	}
	var missing []string
	for _, p := range pi {
		key := p[0].(string) + "/" + p[1].(string)
		m := byKey[key]
		if m == nil {
			missing = append(missing, key)
			continue
		}
		if float64(m.ContextWindow) != p[2].(float64) || float64(m.MaxTokens) != p[3].(float64) {
			t.Errorf("%s: context %d max %d, pi %v %v", key, m.ContextWindow, m.MaxTokens, p[2], p[3])
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of pi's %d models are missing: %s", len(missing), len(pi), strings.Join(missing, " "))
	}
}
