// Probe of issue 13 item 5, option 2 of the seed's user_bash sample (seed 004, "user_bash"):
// the sample's handler with option 1 left out, verbatim: atomic's local backend wrapped to
// source ~/.profile first.
import { createLocalBashOperations } from "@bastani/atomic";
import type { ExtensionAPI } from "@bastani/atomic";

export default function (pi: ExtensionAPI) {
pi.on("user_bash", (event, ctx) => {
  // event.command - the bash command
  // event.excludeFromContext - true if !! prefix
  // event.cwd - working directory

  // Option 2: Wrap atomic's built-in local bash backend
  const local = createLocalBashOperations();
  return {
    operations: {
      exec(command, cwd, options) {
        return local.exec(`source ~/.profile\n${command}`, cwd, options);
      }
    }
  };
});
}
