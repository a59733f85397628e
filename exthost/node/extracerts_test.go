package node

import (
	"bytes"
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/host"
	"github.com/atomic-cli/atomic/tool"
)

func TestDeferExtraCACerts(t *testing.T) {
	env := []string{"A=1", "NODE_EXTRA_CA_CERTS=/old", "ATOMIC_NODE_EXTRA_CA_CERTS=/stale", "NODE_EXTRA_CA_CERTS=/ca.pem", "B=2"}
	got := deferExtraCACerts(env)
	want := []string{"A=1", "ATOMIC_NODE_EXTRA_CA_CERTS=/ca.pem", "B=2"}
	if !slices.Equal(got, want) {
		t.Fatalf("deferExtraCACerts(%q) = %q, want %q", env, got, want)
	}
	if env[1] != "NODE_EXTRA_CA_CERTS=/old" {
		t.Fatal("the caller's slice was modified")
	}
	plain := []string{"A=1"}
	if got := deferExtraCACerts(plain); !slices.Equal(got, plain) {
		t.Fatalf("without the variable: %q", got)
	}
}

// certsTS fetches its url argument with fetch (undici) and with https.get, reports what each
// got, and what NODE_EXTRA_CA_CERTS its child processes see.
const certsTS = `
import * as https from "node:https";
import { execFile } from "node:child_process";
import { Type } from "typebox";
const get = (url: string) => new Promise<string>((resolve) => {
	https.get(url, (res) => { let b = ""; res.on("data", (c) => (b += c)); res.on("end", () => resolve(b)); })
		.on("error", (e: any) => resolve("error " + (e.code ?? e.message)));
});
export default function (pi) {
	pi.registerTool({
		name: "get", label: "Get", description: "gets a URL",
		parameters: Type.Object({ url: Type.String() }),
		async execute(_id, params) {
			const viaFetch = await fetch(params.url).then((r) => r.text(), (e: any) => "error " + (e.cause?.code ?? e.message));
			const viaHttps = await get(params.url);
			const child = await new Promise<string>((resolve) =>
				execFile(process.execPath, ["-e", "process.stdout.write(String(process.env.NODE_EXTRA_CA_CERTS))"], (err, out) => resolve(err ? "error " + err.message : String(out))));
			return { content: [{ type: "text", text: [viaFetch, viaHttps, child, String(process.env.ATOMIC_NODE_EXTRA_CA_CERTS)].join("|") }], details: {} };
		},
	});
}`

// TestExtraCACertsTrustedLazily: the host starts without NODE_EXTRA_CA_CERTS (deferExtraCACerts)
// yet fetch and https trust the file's certificates, as with Node's own start-up loading, and the
// extensions' child processes still see the variable. Without it the same server is refused.
func TestExtraCACertsTrustedLazily(t *testing.T) {
	needNode(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "trusted") }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	extPath := writeExt(t, dir, "certs.ts", certsTS)
	run := func(env []string) string {
		t.Helper()
		var stderr bytes.Buffer
		// The first fetch compiles undici and builds the root store: under load that may block
		// the host past the default 1 s heartbeat bound, so the bound is atomic's default.
		sup := New([]string{extPath}, host.Options{Stderr: &stderr, Env: env, HandlerTimeout: 30 * time.Second}, Options{CacheDir: t.TempDir()})
		defer sup.Close()
		r := ext.NewRunner(nil)
		if es := r.Load(nil, []string{extPath}, sup.Factories()); len(es) > 0 {
			t.Fatalf("load: %v\n%s", es, stderr.String())
		}
		tools := r.Tools(nil, nil)
		if len(tools) != 1 {
			t.Fatalf("tools: %v", tools)
		}
		res, err := tools[0].Execute(context.Background(), tool.Call{ID: "c1", Name: "get", Args: map[string]any{"url": srv.URL}}, nil)
		if err != nil {
			t.Fatalf("get: %v\n%s", err, stderr.String())
		}
		return res.Content[0].Text
	}
	base := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "NODE_EXTRA_CA_CERTS=") || strings.HasPrefix(kv, "ATOMIC_NODE_EXTRA_CA_CERTS=") || strings.HasPrefix(kv, "NODE_OPTIONS=")
	})
	if got, want := run(append(slices.Clip(base), "NODE_EXTRA_CA_CERTS="+caFile)), "trusted|trusted|"+caFile+"|undefined"; got != want {
		t.Errorf("with NODE_EXTRA_CA_CERTS: %q, want %q", got, want)
	}
	got := run(slices.Clip(base))
	if parts := strings.Split(got, "|"); len(parts) != 4 || !strings.HasPrefix(parts[0], "error") || !strings.HasPrefix(parts[1], "error") || parts[2] != "undefined" {
		t.Errorf("without NODE_EXTRA_CA_CERTS the server's certificate was trusted: %q", got)
	}
}
