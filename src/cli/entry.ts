// The CLI bundled into dist/cli.cjs. bin/podplan.js calls its `main`; the CLI tests call its
// `runCli` with their own IO (test/cli/run-cli.ts), so that they run the bundle users run.
import { runCli } from './main';
import { EXIT, processIO } from './io';

export { runCli };

/** How long a finished command waits for the event loop to drain before it exits anyway. */
const EXIT_GRACE_MS = 1_000;

/**
 * Runs `podplan <argv>` in this process, setting its exit code. Once the command has finished the
 * process ends: normally the event loop drains at once; when something still holds it, the process
 * exits after EXIT_GRACE_MS, so a stopped scheduler always ends. (Seen after `podplan run` aborted
 * requests at its stop deadline, with or without its metrics server: the loop stayed alive with no
 * handle or request Node reports; the cause is not found yet. test/real/lease.test.ts fails without
 * this.)
 */
export function main(argv: readonly string[]): void {
  const finish = (code: number) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  };
  runCli([...argv], processIO).then(finish, () => finish(EXIT.badInput));
}
