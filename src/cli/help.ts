// Help text laid out in columns: every option of a command's Options section has its text start at
// the same column, continuation lines too (test/cli/main.test.ts holds every command to it).

/** One option's help: the option indented 2, its text from `column` (on the next line when the option reaches it). */
export function optionHelp(option: string, lines: readonly string[], column: number): string {
  const head = `  ${option}`;
  const pad = ' '.repeat(column);
  const [first = '', ...rest] = lines;
  const top = head.length < column - 1 ? [head.padEnd(column) + first] : [head, pad + first];
  return [...top, ...rest.map((l) => pad + l)].join('\n');
}
