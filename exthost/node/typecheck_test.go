package node

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTypeCheck runs the TypeScript compiler over src/ (tsc --noEmit -p ., the package's
// "check" script), so a type error in the Node host fails `go test ./...`. Like
// TestBundleCurrent it needs node_modules (npm ci in exthost/node; .ci/run installs it).
func TestTypeCheck(t *testing.T) {
	tsc := filepath.Join("node_modules", "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Skip("exthost/node/node_modules is absent: run `npm ci` in exthost/node to type-check src/")
	}
	nodePath := needNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodePath, tsc, "--noEmit", "-p", ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc --noEmit -p exthost/node: %v\n%s", err, out)
	}
}
