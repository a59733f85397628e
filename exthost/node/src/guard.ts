// Imported first: the main channel is fd 1, written with fs.writeSync, so nothing else may write
// to stdout. process.stdout becomes stderr for the extensions (console.log goes to the core's
// log), and source maps are enabled so stack traces name the .ts file and line.

Object.defineProperty(process, "stdout", {
	configurable: true,
	enumerable: true,
	get() {
		return process.stderr;
	},
});
process.setSourceMapsEnabled?.(true);
