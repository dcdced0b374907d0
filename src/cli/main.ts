// `podplan`: the engine, store and manifests without an editor.
import { commands } from './commands';
import { EXIT, type CliIO } from './io';
import { paint, paintProblems } from './colour';
import { errorMessage } from '../engine/api/errors';

export const VERSION = '0.1.0';

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: podplan <command> [options]',
    '',
    'Plan and explain Kubernetes pod scheduling with the upstream kube-scheduler plugins.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    "  -h, --help  this help (`podplan <command> --help`: a command's options)",
    `  --version   print the version (${VERSION})`,
    '',
    'Paths may be files or directories of YAML and JSON; - reads standard input.',
    'Exit codes: 0 success (all pods placed), 1 some pods could not be placed, 2 bad input.',
    '',
  ].join('\n');
}

export async function runCli(argv: readonly string[], given: CliIO): Promise<number> {
  // On a terminal, the severity of every located problem a command prints is coloured.
  const io: CliIO = given.colorErrors ? { ...given, stderr: (text) => given.stderr(paintProblems(text, paint(true))) } : given;
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? commands.find((c) => c.name === rest[0]) : undefined;
    io.stdout(topic ? topic.help : usage());
    return EXIT.ok;
  }
  if (name === '--version') {
    io.stdout(`${VERSION}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const meant = commands.map((c) => c.name).find((c) => c.startsWith(name) || name.startsWith(c));
    io.stderr(`podplan: unknown command "${name}"${meant ? ` (did you mean ${meant}?)` : ''}\n\n${usage()}`);
    return EXIT.badInput;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.help);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    // Commands return their expected failures; anything thrown is a bug, reported without a stack dump.
    io.stderr(`podplan ${name}: internal error: ${errorMessage(error)}\n`);
    return EXIT.badInput;
  }
}
