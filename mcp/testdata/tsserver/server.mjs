// A stdio MCP server built with the official TypeScript SDK, for atomic's MCP tests.
// Environment: MCP_FIXTURE_LOG names a file that gets one line per start ("start <pid>") and per
// tool call ("call <name> <json args>").
import { appendFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const log = (line) => {
  if (process.env.MCP_FIXTURE_LOG) appendFileSync(process.env.MCP_FIXTURE_LOG, line + "\n");
};
log(`start ${process.pid}`);

const server = new Server(
  { name: "fixture", version: "1.0.0" },
  { capabilities: { tools: {}, resources: {} } },
);

const tools = [
  {
    name: "echo",
    description: "Echo the text back, prefixed with 'echo:'",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  { name: "hang", description: "Never answers", inputSchema: { type: "object", properties: {} } },
  { name: "crash", description: "Exits the server process", inputSchema: { type: "object", properties: {} } },
  {
    name: "notify",
    description: "Sends a custom notification, then answers",
    inputSchema: { type: "object", properties: { value: { type: "string" } } },
  },
  {
    name: "slow",
    description: "Reports progress a few times before answering",
    inputSchema: { type: "object", properties: { steps: { type: "number" }, delayMs: { type: "number" } } },
  },
];

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  const { name, arguments: args = {} } = req.params;
  log(`call ${name} ${JSON.stringify(args)}`);
  switch (name) {
    case "echo":
      return { content: [{ type: "text", text: `echo:${args.text}` }] };
    case "hang":
      return new Promise(() => {});
    case "crash":
      process.stderr.write("fixture: crashing on purpose\n");
      process.exit(3);
    case "notify":
      await server.notification({ method: "notifications/fixture_custom", params: { value: args.value ?? "", n: 1 } });
      return { content: [{ type: "text", text: "notified" }] };
    case "slow": {
      const token = req.params._meta?.progressToken;
      const steps = args.steps ?? 3;
      for (let i = 1; i <= steps; i++) {
        await new Promise((r) => setTimeout(r, args.delayMs ?? 50));
        if (token !== undefined) {
          await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } });
        }
      }
      return { content: [{ type: "text", text: `slow done after ${steps} steps` }] };
    }
    default:
      return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
  }
});

server.setRequestHandler(ListResourcesRequestSchema, async () => ({
  resources: [{ uri: "fixture://readme", name: "Read Me", description: "The fixture's read-me", mimeType: "text/plain" }],
}));

server.setRequestHandler(ReadResourceRequestSchema, async (req) => ({
  contents: [{ uri: req.params.uri, mimeType: "text/plain", text: "fixture read-me text" }],
}));

await server.connect(new StdioServerTransport());
