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

/** A formatTable painter. */
export type CellPaint = (text: string, row: number, column: number) => string;

/**
 * The one painter of every command's tables: the header bold; `cell` colours a body cell (undefined
 * leaves it). Undefined when colour is off, so the table is printed plain.
 */
export function tablePaint(p: Paint, cell?: (text: string, row: number, column: number) => string | undefined): CellPaint | undefined {
  if (!p.enabled) return undefined;
  return (text, row, column) => (row < 0 ? p.bold(text) : (cell?.(text, row, column) ?? text));
}

/** A pod's node as every command shows it: green where it was placed, red when it was not (<none>). */
export function placement(p: Paint, placed: boolean, text: string): string {
  return placed ? p.green(text) : p.red(text);
}

/** A report's section heading ("Not placed:", "Stage funnel (nodes left):"): bold. */
export function heading(p: Paint, text: string): string {
  return p.bold(text);
}

/** A plan's status in the history: applied green, superseded dim, a draft as it is. */
export function paintPlanStatus(p: Paint, status: string): string {
  return status === 'applied' ? p.green(status) : status === 'superseded' ? p.dim(status) : status;
}
