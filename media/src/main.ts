// The Podplan panel's script: renders the view model the extension sends and posts back what the
// user asks for. It computes nothing the engine owns (docs/architecture.md, Processes): the server builds
// every number; this prints and draws them. Back/Forward move through the panel's history (kept by
// the extension); what the user did in each view (tab, search, selection, sort) is kept here, per
// history entry, in the webview state, so a view comes back as it was left.
import type { BoundMessage, HostToWebview, NavigationView } from '../../src/protocol/webview';
import { button, h } from './dom';
import { renderExplanation } from './explain';
import { renderDiff, renderHistory } from './history';
import { post, vscode } from './host';
import { renderPlan, showBound } from './plan';
import type { UiState, ViewContext } from './state';

interface Saved {
  readonly message: HostToWebview;
  readonly ui: Readonly<Record<string, UiState>>;
}

let uiByEntry: Record<string, UiState> = {};
let shown: HostToWebview | undefined;

let persistTimer: ReturnType<typeof setTimeout> | undefined;

function persist(): void {
  if (persistTimer !== undefined) clearTimeout(persistTimer);
  persistTimer = undefined;
  if (shown && shown.type !== 'loading') vscode.setState({ message: shown, ui: uiByEntry } satisfies Saved);
}

/**
 * What the user did is kept once they pause: the state holds the whole view model (a 5,000-node
 * plan), and copying it to VS Code on every key or click would stall the page.
 */
function persistSoon(): void {
  if (persistTimer !== undefined) clearTimeout(persistTimer);
  persistTimer = setTimeout(persist, PERSIST_PAUSE_MS);
}
const PERSIST_PAUSE_MS = 400;

function contextFor(entry: number): ViewContext {
  const key = String(entry);
  return {
    ui: uiByEntry[key] ?? {},
    save(patch) {
      uiByEntry = { ...uiByEntry, [key]: { ...(uiByEntry[key] ?? {}), ...patch } };
      persistSoon();
    },
  };
}

function navigation(nav: NavigationView | undefined): HTMLElement {
  const back = button('← Back', 'Back to the previous view (Alt+Left)', () => post({ type: 'back' }), 'nav');
  const forward = button('Forward →', 'Forward to the next view (Alt+Right)', () => post({ type: 'forward' }), 'nav');
  back.disabled = !nav?.back;
  forward.disabled = !nav?.forward;
  return h('nav', { class: 'history-nav', 'aria-label': 'Panel history' }, back, forward);
}

function view(message: HostToWebview): HTMLElement[] {
  const ctx = contextFor(message.nav?.entry ?? 0);
  switch (message.type) {
    case 'loading':
      return [h('p', { class: 'loading', role: 'status' }, message.what)];
    case 'error':
      return [
        h('p', { class: 'error', role: 'alert' }, message.message),
        h(
          'div',
          { class: 'actions' },
          button('Try again', 'Ask the server again', () => post({ type: 'refresh' })),
        ),
      ];
    case 'plan':
      return renderPlan(message.plan, ctx);
    case 'explanation':
      return renderExplanation(message.explanation, ctx);
    case 'history':
      return renderHistory(message.entries, message.next);
    case 'diff':
      return renderDiff(message.diff);
  }
}

const root = document.getElementById('root') ?? document.body;

function show(message: HostToWebview): void {
  shown = message;
  root.replaceChildren(navigation(message.nav), ...view(message));
  root.setAttribute('data-view', message.type);
  root.setAttribute('data-entry', String(message.nav?.entry ?? 0));
  // Kept so that a panel VS Code reloads (hidden and shown again) shows the same view at once.
  persist();
}

/** A bound the shown plan said was coming: filled in where it said so, and kept with the plan. */
function bound({ token, bound }: BoundMessage): void {
  if (shown?.type !== 'plan' || shown.plan.boundPending !== token) return;
  const { boundPending: _, ...plan } = shown.plan;
  shown = { ...shown, plan: bound ? { ...plan, bound } : plan };
  showBound(root, token, bound);
  persist();
}

const KNOWN = new Set<string>(['loading', 'error', 'plan', 'explanation', 'history', 'diff']);
window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const data = event.data as { type?: unknown } | null;
  if (data && typeof data.type === 'string' && KNOWN.has(data.type)) show(data as HostToWebview);
  else if (data?.type === 'bound') bound(data as BoundMessage);
});
window.addEventListener('keydown', (ev) => {
  if (!ev.altKey || (ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight')) return;
  const nav = shown?.nav;
  if (ev.key === 'ArrowLeft' && nav?.back) post({ type: 'back' });
  else if (ev.key === 'ArrowRight' && nav?.forward) post({ type: 'forward' });
  else return;
  ev.preventDefault();
});

const saved = vscode.getState() as Saved | undefined;
if (saved && typeof saved === 'object' && saved.message && KNOWN.has(saved.message.type)) {
  uiByEntry = { ...saved.ui };
  show(saved.message);
}
post({ type: 'ready' });
