// Imported first: process.stdout becomes stderr for the extensions, so everything they print
// (console.log included) reaches the core's log as one stream (the protocol has fds of its own,
// and fd 1 is the log too), and source maps are enabled so stack traces name the .ts file and
// line.

Object.defineProperty(process, "stdout", {
	configurable: true,
	enumerable: true,
	get() {
		return process.stderr;
	},
});
process.setSourceMapsEnabled?.(true);
