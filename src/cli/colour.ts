// Colour for a terminal: stdout is coloured when it is a terminal and NO_COLOR is unset or empty
// (https://no-color.org), stderr's "error" and "warning" when stderr is one; never in a pipe. Text
// is made first and painted last, so what a pipe gets is the same text without the escapes.

export interface Paint {
  readonly enabled: boolean;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
}

const sgr = (open: number, close: number) => (text: string) => (text === '' ? text : `\x1b[${open}m${text}\x1b[${close}m`);
const plain = (text: string) => text;

const ON: Paint = { enabled: true, red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), bold: sgr(1, 22), dim: sgr(2, 22) };
const OFF: Paint = { enabled: false, red: plain, green: plain, yellow: plain, bold: plain, dim: plain };

export function paint(enabled: boolean | undefined): Paint {
  return enabled ? ON : OFF;
}

/** Whether NO_COLOR (set and not empty) or TERM=dumb turns colour off. */
export function colourRefused(env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(env['NO_COLOR']) || env['TERM'] === 'dumb';
}

/** A located problem line (`file:1:2: error code: …`, `warning: …`) with its severity painted. */
export function paintProblems(text: string, p: Paint): string {
  if (!p.enabled) return text;
  return text.replace(
    /^((?:[^\s:]+(?::\d+){0,2}: )?)(error|warning)\b/gm,
    (_, at: string, severity: string) => `${at}${severity === 'error' ? p.red(p.bold(severity)) : p.yellow(p.bold(severity))}`,
  );
}
