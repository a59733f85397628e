// rpc-components.ts is loaded by rpc-driver.mjs next to the rpcui Go extension: a footer factory
// and a factory widget that re-renders on a timer reach pi's RpcClient as setFooter/setWidget
// frames it never answers, and the session goes on as before.
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
	});
}
