// The @vscode-elements components the views use, registered once. They are Lit elements: their
// styles go in as constructed style sheets (adoptedStyleSheets), which the panel's CSP allows
// without 'unsafe-inline'. None of these uses the codicon font, so no font needs to be allowed.
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';

/** The tab headers and panels of a vscode-tabs, `selected` shown first; `onSelect` hears the user switch. */
export function tabs(
  label: string,
  pages: ReadonlyArray<{ readonly id: string; readonly title: string; readonly body: () => HTMLElement }>,
  selected: string,
  onSelect: (id: string) => void,
): HTMLElement {
  const el = document.createElement('vscode-tabs');
  el.setAttribute('aria-label', label);
  const index = Math.max(
    0,
    pages.findIndex((p) => p.id === selected),
  );
  const built = new Map<number, HTMLElement>();
  const panels: HTMLElement[] = [];
  for (const page of pages) {
    const head = document.createElement('vscode-tab-header');
    head.setAttribute('slot', 'header');
    head.setAttribute('data-tab', page.id);
    head.append(page.title);
    const panel = document.createElement('vscode-tab-panel');
    panel.setAttribute('data-tab', page.id);
    el.append(head);
    panels.push(panel);
  }
  el.append(...panels);
  // Panels are built when first shown: a map of 5,000 nodes is drawn once it has a size.
  const show = (i: number): void => {
    const panel = panels[i];
    const page = pages[i];
    if (!panel || !page) return;
    if (!built.has(i)) {
      const body = page.body();
      built.set(i, body);
      panel.append(body);
    }
  };
  el.selectedIndex = index;
  show(index);
  el.addEventListener('vsc-tabs-select', (ev) => {
    const i = (ev as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex;
    show(i);
    const page = pages[i];
    if (page) onSelect(page.id);
  });
  return el;
}
