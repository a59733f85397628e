package cli

import (
	"context"
	"net/http"
	"net/http/httptest"

	"github.com/rogpeppe/go-internal/testscript"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	scriptCmds["mcphttp"] = cmdMCPHTTP
}

// cmdMCPHTTP is `mcphttp <VAR>`: serve an MCP server built with the Go SDK over streamable HTTP
// on loopback for the rest of the script, its URL in VAR. Its tools: echo (answers
// "web:<text>") and hang (answers only by ending when the request is cancelled).
func cmdMCPHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mcphttp VAR")
	}
	type echoIn struct {
		Text string `json:"text"`
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "echo", Description: "Echo the text back over HTTP"}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "web:" + in.Text}}}, nil, nil
	})
	// stop ends a hanging call when the script ends: the server keeps the session (and the
	// call's context) after atomic has gone, and srv.Close waits for every handler.
	stop := make(chan struct{})
	sdk.AddTool(server, &sdk.Tool{Name: "hang", Description: "Never answers"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-stop:
			return nil, nil, context.Canceled
		}
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	ts.Defer(func() {
		close(stop)
		srv.Close()
	})
	ts.Setenv(args[0], srv.URL)
}
