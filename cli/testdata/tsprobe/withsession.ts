// Probe of issue 13 item 7: withSession's ReplacedSessionContext has sendMessage() and
// sendUserMessage(), and newSession({ setup }) runs setup against the new session's
// SessionManager. /seednew is the seed's ctx.newSession sample verbatim inside a command
// (seed 004, "ctx.newSession(options?)"), /handoff the seed's "Safe pattern" verbatim, /custom a
// custom message sent with the replacement ctx's sendMessage.
import type { ExtensionAPI } from "@bastani/atomic";

export default function (pi: ExtensionAPI) {
pi.registerCommand("seednew", {
  handler: async (_args, ctx) => {
const parentSession = ctx.sessionManager.getSessionFile();
const kickoff = "Continue in the replacement session";

const result = await ctx.newSession({
  parentSession,
  setup: async (sm) => {
    sm.appendMessage({
      role: "user",
      content: [{ type: "text", text: "Context from previous session..." }],
      timestamp: Date.now(),
    });
  },
  withSession: async (ctx) => {
    // Use only the replacement-session ctx here.
    await ctx.sendUserMessage(kickoff);
  },
});

if (result.cancelled) {
  // An extension cancelled the new session
}
  },
});

pi.registerCommand("handoff", {
  handler: async (_args, ctx) => {
    const kickoff = "Continue from the replacement session";
    await ctx.newSession({
      withSession: async (ctx) => {
        await ctx.sendUserMessage(kickoff);
      },
    });
  },
});

	pi.registerCommand("custom", {
		handler: async (_args, ctx) => {
			await ctx.newSession({
				withSession: async (ctx: any) => {
					await ctx.sendMessage({ customType: "probe", content: "CUSTOM-IN-REPLACEMENT", display: true }, { triggerTurn: true });
				},
			});
		},
	});
}
