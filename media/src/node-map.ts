// The node map: every node a tile on one canvas, in a grid, coloured by the use of a resource or by
// the owner of the pods the plan puts there. The canvas is drawn from the view model's numbers only;
// hit-testing maps a point (or the keyboard cursor) back to a node. For screen readers the map is a
// grid whose active cell (aria-activedescendant) names the node under the cursor.
import type { NodeUseView } from '../../src/protocol/webview';
import { usePercent } from './query';

export type Colouring = 'cpu' | 'memory' | 'pods' | 'owner';

export interface NodeMap {
  readonly element: HTMLElement;
  /** Draws these nodes, in this order; the selection stays when the node is still shown. */
  show(nodes: readonly NodeUseView[], colouring: Colouring): void;
  select(node: string | undefined): void;
}

export interface NodeMapOptions {
  readonly onSelect: (node: NodeUseView) => void;
  readonly describe: (node: NodeUseView) => string;
  /** The colour variable of an owner, for the owner colouring. */
  readonly ownerColour: (owner: string) => string;
}

const GAP = 2;
/** Use bands in percent, each with the theme colour it is drawn in; over 100 is drawn struck through. */
const BANDS: ReadonlyArray<readonly [number, string]> = [
  [50, '--vscode-charts-green'],
  [75, '--vscode-charts-yellow'],
  [90, '--vscode-charts-orange'],
  [Infinity, '--vscode-charts-red'],
];
/** The owners with the most planned pods get a colour each; the others share one. */
const OWNER_COLOURS = [
  '--vscode-charts-blue',
  '--vscode-charts-purple',
  '--vscode-charts-green',
  '--vscode-charts-orange',
  '--vscode-charts-yellow',
  '--vscode-charts-red',
];
export const OTHER_OWNERS = '--vscode-descriptionForeground';
export const NO_PODS = '--vscode-editorWidget-background';

/** Tiles shrink as the cluster grows, so 5,000 nodes fit a panel's width in about 70 columns. */
function pitchFor(count: number): number {
  if (count <= 200) return 30;
  if (count <= 1500) return 18;
  return 13;
}

/** The owners of the planned pods, most pods first, the first ones with a colour of their own. */
export function ownerPalette(nodes: readonly NodeUseView[]): {
  readonly top: ReadonlyArray<readonly [owner: string, pods: number, colour: string]>;
  readonly colourOf: (owner: string) => string;
} {
  const counts = new Map<string, number>();
  for (const n of nodes) for (const o of n.owners) counts.set(o.owner, (counts.get(o.owner) ?? 0) + o.pods.length);
  const top = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, OWNER_COLOURS.length)
    .map(([owner, pods], i): readonly [string, number, string] => [owner, pods, OWNER_COLOURS[i] as string]);
  const colours = new Map(top.map(([owner, , colour]) => [owner, colour]));
  return { top, colourOf: (owner) => colours.get(owner) ?? OTHER_OWNERS };
}

export function bandOf(percent: number): string {
  return (BANDS.find(([limit]) => percent < limit) ?? BANDS[BANDS.length - 1])?.[1] as string;
}

export function nodeMap(label: string, options: NodeMapOptions): NodeMap {
  const element = document.createElement('div');
  element.className = 'node-map';
  element.tabIndex = 0;
  element.setAttribute('role', 'grid');
  element.setAttribute('aria-label', label);
  const canvas = document.createElement('canvas');
  canvas.setAttribute('aria-hidden', 'true');
  const row = document.createElement('div');
  row.setAttribute('role', 'row');
  row.className = 'visually-hidden';
  const cell = document.createElement('div');
  cell.setAttribute('role', 'gridcell');
  row.append(cell);
  const tip = document.createElement('div');
  tip.className = 'map-tip';
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  element.append(canvas, row, tip);

  let nodes: readonly NodeUseView[] = [];
  let colouring: Colouring = 'cpu';
  let columns = 1;
  let pitch = 13;
  let cursor = -1;
  let selected: string | undefined;
  let hovered = -1;
  let colours = new Map<string, string>();

  const themeColour = (name: string, fallback = '#888888'): string => {
    let c = colours.get(name);
    if (c === undefined) colours.set(name, (c = getComputedStyle(element).getPropertyValue(name).trim()));
    return c || fallback;
  };

  const fillOf = (n: NodeUseView): string => {
    if (colouring === 'owner') return themeColour(n.owners[0] ? options.ownerColour(n.owners[0].owner) : NO_PODS);
    const use = usePercent(n, colouring);
    return themeColour(use <= 0 ? NO_PODS : bandOf(use));
  };

  const tile = (ctx: CanvasRenderingContext2D, i: number): void => {
    const n = nodes[i];
    if (!n) return;
    const x = (i % columns) * pitch;
    const y = Math.floor(i / columns) * pitch;
    const size = pitch - GAP;
    ctx.clearRect(x, y, pitch, pitch);
    ctx.fillStyle = fillOf(n);
    ctx.fillRect(x, y, size, size);
    // High contrast themes set contrastBorder; the others leave it empty.
    ctx.strokeStyle = themeColour('--vscode-contrastBorder', themeColour('--vscode-panel-border'));
    ctx.lineWidth = 1;
    ctx.strokeRect(x + 0.5, y + 0.5, size - 1, size - 1);
    if (n.unschedulable || (colouring !== 'owner' && usePercent(n, colouring) > 100)) {
      // Cordoned or over-committed: struck through, so it reads without colour too.
      ctx.strokeStyle = themeColour('--vscode-foreground');
      ctx.beginPath();
      ctx.moveTo(x + 1, y + size - 1);
      ctx.lineTo(x + size - 1, y + 1);
      ctx.stroke();
    }
    if (n.pods.length > 0 && colouring !== 'owner') {
      // The plan puts pods here: a dot in the middle.
      ctx.fillStyle = themeColour('--vscode-foreground');
      const r = Math.max(1.5, size / 6);
      ctx.beginPath();
      ctx.arc(x + size / 2, y + size / 2, r, 0, Math.PI * 2);
      ctx.fill();
    }
    if (n.node === selected || i === cursor || i === hovered) {
      ctx.strokeStyle = themeColour('--vscode-focusBorder');
      ctx.lineWidth = n.node === selected ? 3 : 2;
      ctx.strokeRect(x + 1, y + 1, size - 2, size - 2);
    }
  };

  let context: CanvasRenderingContext2D | null = null;
  const draw = (): void => {
    const width = element.clientWidth;
    if (width === 0) return;
    pitch = pitchFor(nodes.length);
    columns = Math.max(1, Math.floor(width / pitch));
    const rows = Math.ceil(nodes.length / columns);
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.floor(columns * pitch * ratio);
    canvas.height = Math.max(1, Math.floor(rows * pitch * ratio));
    canvas.style.width = `${columns * pitch}px`;
    canvas.style.height = `${rows * pitch}px`;
    element.setAttribute('aria-rowcount', String(rows));
    element.setAttribute('aria-colcount', String(columns));
    context = canvas.getContext('2d');
    if (!context) return;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    for (let i = 0; i < nodes.length; i++) tile(context, i);
  };
  const redrawTile = (i: number): void => {
    if (context && i >= 0) tile(context, i);
  };

  const at = (ev: MouseEvent): number => {
    const box = canvas.getBoundingClientRect();
    const col = Math.floor((ev.clientX - box.left) / pitch);
    const r = Math.floor((ev.clientY - box.top) / pitch);
    const i = r * columns + col;
    return col >= 0 && col < columns && r >= 0 && i < nodes.length ? i : -1;
  };

  const moveCursor = (i: number): void => {
    if (nodes.length === 0) return;
    const next = Math.max(0, Math.min(nodes.length - 1, i));
    const before = cursor;
    cursor = next;
    redrawTile(before);
    redrawTile(cursor);
    const n = nodes[cursor];
    if (!n) return;
    cell.id = `map-node-${cursor}`;
    cell.textContent = options.describe(n);
    cell.setAttribute('aria-rowindex', String(Math.floor(cursor / columns) + 1));
    cell.setAttribute('aria-colindex', String((cursor % columns) + 1));
    element.setAttribute('aria-activedescendant', cell.id);
    // Keep the cursor's tile in view when the map scrolls with the page, and say what it is beside it.
    const x = (cursor % columns) * pitch;
    const y = Math.floor(cursor / columns) * pitch;
    const box = canvas.getBoundingClientRect();
    if (box.top + y < 0 || box.top + y + pitch > window.innerHeight) window.scrollBy(0, box.top + y - window.innerHeight / 2);
    showTip(n, x + pitch, y + pitch);
  };

  /** The tooltip for `n` at (x, y) in the map's own coordinates, kept inside the map's width. */
  const showTip = (n: NodeUseView, x: number, y: number): void => {
    tip.textContent = options.describe(n);
    tip.hidden = false;
    tip.style.left = `${Math.min(x, Math.max(0, element.clientWidth - 260))}px`;
    tip.style.top = `${y}px`;
  };

  canvas.addEventListener('mousemove', (ev) => {
    const i = at(ev);
    if (i === hovered) return;
    const before = hovered;
    hovered = i;
    redrawTile(before);
    redrawTile(hovered);
    const n = nodes[i];
    if (!n) {
      tip.hidden = true;
      return;
    }
    const box = element.getBoundingClientRect();
    showTip(n, ev.clientX - box.left + 12, ev.clientY - box.top + 16);
  });
  canvas.addEventListener('mouseleave', () => {
    const before = hovered;
    hovered = -1;
    redrawTile(before);
    tip.hidden = true;
  });
  canvas.addEventListener('click', (ev) => {
    const i = at(ev);
    const n = nodes[i];
    if (!n) return;
    moveCursor(i);
    options.onSelect(n);
  });
  element.addEventListener('blur', () => {
    tip.hidden = true;
  });
  element.addEventListener('focus', () => {
    if (cursor < 0)
      moveCursor(
        Math.max(
          0,
          nodes.findIndex((n) => n.node === selected),
        ),
      );
  });
  element.addEventListener('keydown', (ev) => {
    const moves: Record<string, number> = {
      ArrowLeft: -1,
      ArrowRight: 1,
      ArrowUp: -columns,
      ArrowDown: columns,
      PageUp: -columns * 10,
      PageDown: columns * 10,
    };
    const step = moves[ev.key];
    if (step !== undefined) moveCursor(cursor + step);
    else if (ev.key === 'Home') moveCursor(0);
    else if (ev.key === 'End') moveCursor(nodes.length - 1);
    else if (ev.key === 'Enter' || ev.key === ' ') {
      const n = nodes[cursor];
      if (n) options.onSelect(n);
    } else return;
    ev.preventDefault();
  });
  new ResizeObserver(() => draw()).observe(element);
  // A theme change restyles the variables: read them again.
  new MutationObserver(() => {
    colours = new Map();
    draw();
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });

  return {
    element,
    show(next, by) {
      nodes = next;
      colouring = by;
      cursor = -1;
      hovered = -1;
      element.removeAttribute('aria-activedescendant');
      draw();
    },
    select(node) {
      const before = nodes.findIndex((n) => n.node === selected);
      selected = node;
      redrawTile(before);
      redrawTile(nodes.findIndex((n) => n.node === node));
    },
  };
}
