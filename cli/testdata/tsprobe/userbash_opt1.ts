// Probe of issue 13 item 5, option 1 of the seed's user_bash sample (seed 004, "user_bash"):
// the sample's lines up to its first return, verbatim; remoteBashOps is a stand-in for a remote
// shell that reports what it was asked to run and exits with 3.
import { createLocalBashOperations } from "@bastani/atomic";
import type { ExtensionAPI } from "@bastani/atomic";

const remoteBashOps = {
	async exec(command: string, cwd: string, options: { onData: (data: Buffer) => void }) {
		options.onData(Buffer.from(`remote ran <${command}> in ${cwd}\n`));
		return { exitCode: 3 };
	},
};

export default function (pi: ExtensionAPI) {
pi.on("user_bash", (event, ctx) => {
  // event.command - the bash command
  // event.excludeFromContext - true if !! prefix
  // event.cwd - working directory

  // Option 1: Provide custom operations (e.g., SSH)
  return { operations: remoteBashOps };
});
}
