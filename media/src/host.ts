// The webview's side of the host: the VS Code API (acquired once), what it posts, and the small
// pieces every view uses to ask for something (a link that reveals an object, an Explain button).
import type { ObjectKindView, PlanRefView, WebviewToHost } from '../../src/protocol/webview';
import { button, h, type Child } from './dom';

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export const vscode = acquireVsCodeApi();
export const post = (message: WebviewToHost): void => vscode.postMessage(message);

/** A link that opens a workspace object in the editor. */
export function link(label: string, kind: ObjectKindView, name: string, namespace?: string): HTMLAnchorElement {
  const a = h('a', { href: '#', class: 'ref', title: `Open ${kind} ${name}` }, label);
  a.addEventListener('click', (ev) => {
    ev.preventDefault();
    post({ type: 'reveal', kind, name, ...(namespace !== undefined ? { namespace } : {}) });
  });
  return a;
}

/** A pod named namespace/name, as a link that opens it. */
export function podLink(key: string): HTMLAnchorElement {
  const slash = key.indexOf('/');
  return slash < 0 ? link(key, 'Pod', key) : link(key, 'Pod', key.slice(slash + 1), key.slice(0, slash));
}

/** Explain a pod; from a plan, the planner's cycle for it in that plan. */
export function explainButton(namespace: string, pod: string, inPlan?: PlanRefView): HTMLButtonElement {
  return button(
    'Explain',
    `Explain where ${pod} goes and why`,
    () => post({ type: 'explainPod', namespace, pod, ...(inPlan ? { inPlan } : {}) }),
    'action small',
  );
}

/** A view's title, its facts on one line, and its actions. */
export function header(title: string, facts: readonly Child[], ...actions: HTMLElement[]): HTMLElement {
  const parts = facts.filter((f): f is string | Node => f !== undefined && f !== false);
  return h(
    'header',
    {},
    h('h1', {}, title),
    parts.length > 0 && h('p', { class: 'facts' }, ...parts.flatMap((f, i) => (i === 0 ? [f] : [' · ', f]))),
    actions.length > 0 && h('div', { class: 'actions' }, ...actions),
  );
}

/** A pod's name (opens it) and its Explain button. */
export function podChip(namespace: string, pod: string, inPlan?: PlanRefView): HTMLElement {
  return h('span', { class: 'pod-chip' }, link(pod, 'Pod', pod, namespace), ' ', explainButton(namespace, pod, inPlan));
}
