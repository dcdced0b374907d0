// Virtualized rows: a scroller of fixed-height rows that keeps in the DOM only the rows in view
// (and a few either side), so a list of 5,000 nodes costs what 40 rows cost.

export interface VirtualRows {
  /** The scrolling element, to be put in the page. */
  readonly element: HTMLElement;
  /** Shows `count` rows, drawn by `row`; keeps the scroll position when it can. */
  update(count: number, row: (index: number) => HTMLElement): void;
  /** Scrolls so that row `index` is in view. */
  reveal(index: number): void;
  /** Draws the rows in view again (after a change that keeps the count). */
  redraw(): void;
}

const OVERSCAN = 8;

export function virtualRows(rowHeight: number, attrs: Readonly<Record<string, string>>, viewportRows = 20): VirtualRows {
  const element = document.createElement('div');
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
  element.classList.add('virtual');
  element.style.maxHeight = `${viewportRows * rowHeight}px`;
  const spacer = document.createElement('div');
  spacer.className = 'virtual-spacer';
  // Rows live in a rowgroup so that a grid's rows stay its (owned) descendants.
  const body = document.createElement('div');
  body.className = 'virtual-body';
  body.setAttribute('role', 'rowgroup');
  spacer.append(body);
  element.append(spacer);
  let count = 0;
  let draw: (index: number) => HTMLElement = () => document.createElement('div');
  let first = -1;
  let last = -1;
  let pending = false;

  const paint = (force: boolean): void => {
    const top = element.scrollTop;
    const height = element.clientHeight || viewportRows * rowHeight;
    const from = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
    const to = Math.min(count, Math.ceil((top + height) / rowHeight) + OVERSCAN);
    if (!force && from === first && to === last) return;
    first = from;
    last = to;
    const rows: HTMLElement[] = [];
    for (let i = from; i < to; i++) {
      const row = draw(i);
      row.style.transform = `translateY(${i * rowHeight}px)`;
      row.style.height = `${rowHeight}px`;
      rows.push(row);
    }
    body.replaceChildren(...rows);
  };

  element.addEventListener('scroll', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      paint(false);
    });
  });

  return {
    element,
    update(n, row) {
      count = n;
      draw = row;
      spacer.style.height = `${n * rowHeight}px`;
      paint(true);
    },
    reveal(index) {
      const top = index * rowHeight;
      const height = element.clientHeight || viewportRows * rowHeight;
      if (top < element.scrollTop) element.scrollTop = top;
      else if (top + rowHeight > element.scrollTop + height) element.scrollTop = top + rowHeight - height;
      paint(false);
    },
    redraw() {
      paint(true);
    },
  };
}
