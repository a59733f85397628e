// rpc-components.ts is loaded by rpc-driver.mjs next to the rpcui Go extension: a footer factory,
// a factory widget that re-renders on a timer and an overlay (ctx.ui.custom) reach pi's RpcClient
// as setFooter/setWidget/custom frames it never answers, and the session goes on as before.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Text } from "@mariozechner/pi-tui";

export default function (pi: ExtensionAPI) {
	pi.on("session_start", (_event, ctx) => {
		ctx.ui.setFooter(() => ({ render: (w: number) => ["COMPONENT-FOOTER " + w], invalidate() {} }));
		ctx.ui.setWidget(
			"ticker",
			(tui) => {
				const t = new Text("TICK 0", 0, 0);
				let n = 0;
				const timer = setInterval(() => {
					t.setText("TICK " + ++n);
					tui.requestRender();
					if (n >= 3) clearInterval(timer);
				}, 10);
				return t;
			},
			{ placement: "belowEditor" },
		);
		// pi's RpcClient sends no extension_ui_input: the overlay stays open and nothing waits on it.
		void ctx.ui
			.custom((_tui, _theme, _kb, _done) => ({ render: (w: number) => ["RPC-OVERLAY " + w], handleInput() {}, invalidate() {} }), { overlay: true })
			.catch(() => {});
	});
}
