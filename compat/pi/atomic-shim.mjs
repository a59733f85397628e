// atomic-shim.mjs is the "cliPath" handed to pi's RpcClient, which always starts
// `node <cliPath> --mode rpc …`: it runs the atomic binary named by $ATOMIC_BIN with the same
// arguments and stdio, forwards signals, and exits with atomic's exit code.
import { spawn } from "node:child_process";

const child = spawn(process.env.ATOMIC_BIN, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
	process.on(sig, () => child.kill(sig));
}
child.on("exit", (code, signal) => {
	process.exit(code ?? (signal === "SIGTERM" ? 143 : signal === "SIGHUP" ? 129 : 1));
});
