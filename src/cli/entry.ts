// The CLI bundled into dist/cli.cjs. bin/podplan.js calls its `main`; the CLI tests call its
// `runCli` with their own IO (test/cli/run-cli.ts), so that they run the bundle users run.
import { runCli } from './main';
import { EXIT, processIO } from './io';

export { runCli };

/** Runs `podplan <argv>` in this process, setting its exit code. */
export function main(argv: readonly string[]): void {
  runCli([...argv], processIO).then(
    (code) => (process.exitCode = code),
    () => (process.exitCode = EXIT.badInput),
  );
}
