// The process entry bundled into dist/cli.cjs (bin/podplan.js runs it).
import { runCli } from './main';
import { EXIT, processIO } from './io';

runCli(process.argv.slice(2), processIO).then(
  (code) => (process.exitCode = code),
  () => (process.exitCode = EXIT.badInput),
);
