// Builds the webview's DOM. Text only ever enters as text nodes (append of a string) and attributes
// through setAttribute, never as markup, so no string of a view model can become HTML
// (docs/architecture.md, Data that must never be lost or leaked: everything shown in a webview is escaped).

export type Child = Node | string | undefined | false;

export interface Attrs {
  readonly class?: string;
  readonly title?: string;
  readonly [attribute: string]: string | undefined;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) el.setAttribute(name, value);
  for (const child of children) if (child !== undefined && child !== false) el.append(child);
  return el;
}

export function button(label: string, title: string, onClick: () => void, cls = 'action'): HTMLButtonElement {
  const b = h('button', { class: cls, title, type: 'button' }, label);
  b.addEventListener('click', onClick);
  return b;
}

export function table(head: readonly string[], rows: ReadonlyArray<readonly Child[]>): HTMLTableElement {
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', {}, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
  );
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', {}, h('h2', {}, title), ...children);
}
