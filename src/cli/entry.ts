// The CLI bundled into dist/cli.cjs. bin/podplan.js calls its `main`; the CLI tests call its
// `runCli` with their own IO (test/cli/run-cli.ts), so that they run the bundle users run.
import { runCli } from './main';
import { EXIT, processIO } from './io';

export { runCli };

/** How long a finished command waits for the event loop to drain before it exits anyway. */
const EXIT_GRACE_MS = 1_000;

/**
 * Runs `podplan <argv>` in this process, setting its exit code. Once the command has finished the
 * process ends: normally the event loop drains at once; when something still holds it (seen after
 * `podplan run` aborted requests at its stop deadline: the main loop kept waking every 10 ms with no
 * handle Node reports), the process exits after EXIT_GRACE_MS, so a stopped scheduler always ends.
 */
export function main(argv: readonly string[]): void {
  const finish = (code: number) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  };
  runCli([...argv], processIO).then(finish, () => finish(EXIT.badInput));
}
