// The plan preview webview in headless Chromium: the real bundle (dist/webview.js) under the real
// panel page and its Content Security Policy, with a stand-in for acquireVsCodeApi. It is sent view
// models (with hostile strings, to prove they stay text), the DOM and the posted intents are checked,
// and screenshots in a light and a dark theme go to test-results/ to be looked at.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { panelHtml } from '../../src/extension/webview/html';
import type { HostToWebview, PlanView, WebviewToHost } from '../../src/protocol/webview';

const ORIGIN = 'https://webview.test';
const BUNDLE = 'dist/webview.js';
const RESULTS = 'test-results';
const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = '<img src=x onerror=alert(1)>';

/** Builds the bundle when it is missing or older than its sources, so that `npx mocha` alone works. */
async function ensureBundle(): Promise<void> {
  const built = existsSync(BUNDLE) ? statSync(BUNDLE).mtimeMs : 0;
  const sources = ['media/src', 'src/protocol'].flatMap((dir) => readdirSync(dir).map((f) => statSync(path.join(dir, f)).mtimeMs));
  if (built > Math.max(...sources)) return;
  await build({ entryPoints: ['media/src/main.ts'], outfile: BUNDLE, bundle: true, platform: 'browser', target: 'chrome120', format: 'iife', sourcemap: true, logLevel: 'warning' });
}

// VS Code's Light Modern and Dark Modern values of the variables podplan.css uses; VS Code sets
// them on <html> and a theme class on <body> the same way.
const THEME_COLORS: Readonly<Record<string, readonly [light: string, dark: string]>> = {
  foreground: ['#3b3b3b', '#cccccc'],
  'editor-background': ['#ffffff', '#1f1f1f'],
  descriptionForeground: ['#717171', '#9d9d9d'],
  'button-background': ['#005fb8', '#0078d4'],
  'button-foreground': ['#ffffff', '#ffffff'],
  'button-hoverBackground': ['#0258a8', '#026ec1'],
  'button-secondaryBackground': ['#e5e5e5', '#313131'],
  'button-secondaryForeground': ['#3b3b3b', '#cccccc'],
  'textLink-foreground': ['#005fb8', '#4daafc'],
  errorForeground: ['#f85149', '#f85149'],
  'badge-background': ['#cccccc', '#616161'],
  'badge-foreground': ['#3b3b3b', '#f8f8f8'],
  'panel-border': ['#e5e5e5', '#2b2b2b'],
  'charts-blue': ['#1a85ff', '#3794ff'],
  'charts-green': ['#388a34', '#89d185'],
  'charts-red': ['#e51400', '#f14c4c'],
  'textBlockQuote-background': ['#f8f8f8', '#2b2b2b'],
  'editorWidget-background': ['#f8f8f8', '#202020'],
  'list-hoverBackground': ['#f2f2f2', '#2a2d2e'],
  focusBorder: ['#005fb8', '#0078d4'],
  'inputValidation-errorBackground': ['#f2dede', '#5a1d1d'],
  'inputValidation-errorBorder': ['#be1100', '#be1100'],
  'editorError-foreground': ['#e51400', '#f14c4c'],
};
const THEMES = { light: 0, dark: 1 } as const;
type Theme = keyof typeof THEMES;

const GIB = 1024 ** 3;
const plan: PlanView = {
  podSet: 'nightly-batch',
  namespace: 'analytics',
  trigger: 'nightly-batch',
  planner: 'default',
  profile: 'podset-planner-scheduler',
  createdAt: Date.UTC(2025, 2, 14, 9, 30),
  snapshotHash: 'c0ffee',
  historyId: 42,
  assignments: [
    { pod: 'etl-0', node: 'worker-a', score: 187 },
    { pod: 'etl-1', node: 'worker-b', score: 164 },
    { pod: HOSTILE, node: 'worker-a', score: 150 },
  ],
  nodes: [
    {
      node: 'worker-a',
      pods: ['etl-0', HOSTILE],
      resources: [
        { resource: 'cpu', unit: 'millicores', allocatable: 8000, requested: 2000, planned: 3000 },
        { resource: 'memory', unit: 'bytes', allocatable: 32 * GIB, requested: 4 * GIB, planned: 6 * GIB },
        { resource: 'pods', unit: 'count', allocatable: 110, requested: 12, planned: 2 },
      ],
    },
    {
      node: 'worker-b',
      pods: ['etl-1'],
      resources: [
        { resource: 'cpu', unit: 'millicores', allocatable: 4000, requested: 3000, planned: 1500 },
        { resource: 'memory', unit: 'bytes', allocatable: 16 * GIB, requested: 8 * GIB, planned: 3 * GIB },
      ],
    },
  ],
  unplaced: [
    {
      pod: 'etl-3',
      stage: 'Filter',
      plugin: 'NodeResourcesFit',
      reason: 'Insufficient cpu',
      message: '0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {dedicated: gpu}.',
      reasons: [
        { reason: 'node(s) had untolerated taint {dedicated: gpu}', nodes: 3 },
        { reason: 'Insufficient cpu', nodes: 2 },
      ],
    },
    { pod: 'feature-store-1', stage: 'Filter', plugin: HOSTILE, reason: HOSTILE, message: `0/5 nodes are available: 5 ${HOSTILE}.`, reasons: [{ reason: HOSTILE, nodes: 5 }] },
  ],
};

interface Recorded {
  readonly posted: WebviewToHost[];
  readonly violations: string[];
  readonly state: unknown;
}

describe('webview in headless Chromium', function () {
  let browser: Browser;
  const dialogs: string[] = [];
  const errors: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    await ensureBundle();
    mkdirSync(RESULTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });

  after(async () => {
    await browser?.close();
  });

  afterEach(() => assert.deepEqual(errors.splice(0), [], 'errors in the page'));

  /** A page as VS Code would show it: the panel HTML, the extension's files served from ORIGIN. */
  async function open(theme: Theme, saved?: HostToWebview): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const files: Record<string, { body: string; type: string }> = {
      '/index.html': { body: panelHtml({ cspSource: ORIGIN, script: `${ORIGIN}/dist/webview.js`, style: `${ORIGIN}/media/podplan.css`, nonce: 'dGVzdG5vbmNldGVzdG5vbmNl', title: 'Podplan' }), type: 'text/html' },
      '/dist/webview.js': { body: readFileSync(BUNDLE, 'utf8'), type: 'text/javascript' },
      '/media/podplan.css': { body: readFileSync('media/podplan.css', 'utf8'), type: 'text/css' },
    };
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      const file = url.origin === ORIGIN ? files[url.pathname] : undefined;
      await (file ? route.fulfill({ status: 200, contentType: file.type, body: file.body }) : route.abort());
    });
    // The stand-in for VS Code's acquireVsCodeApi, and a record of what the page did. A string, as
    // tsx would add helpers to a function that the page does not have.
    await page.addInitScript(`
      window.__posted = [];
      window.__violations = [];
      window.__state = ${JSON.stringify(saved ?? null)} ?? undefined;
      document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
      window.acquireVsCodeApi = () => ({
        postMessage(m) { window.__posted.push(m); },
        getState() { return window.__state; },
        setState(s) { window.__state = s; },
      });
    `);
    await page.goto(`${ORIGIN}/index.html`);
    const vars: Record<string, string> = {
      'font-family': 'system-ui, sans-serif',
      'font-size': '13px',
      'editor-font-family': 'monospace',
      'editor-font-size': '13px',
      ...Object.fromEntries(Object.entries(THEME_COLORS).map(([name, colors]) => [name, colors[THEMES[theme]]])),
    };
    await page.evaluate(`
      document.body.className = 'vscode-${theme}';
      for (const [name, value] of Object.entries(${JSON.stringify(vars)})) document.documentElement.style.setProperty('--vscode-' + name, value);
    `);
    return page;
  }

  async function send(page: Page, message: HostToWebview): Promise<void> {
    await page.evaluate((m) => window.postMessage(m, '*'), message);
    await page.waitForSelector(`#root[data-view="${message.type}"]`);
  }

  const recorded = (page: Page): Promise<Recorded> =>
    page.evaluate(() => {
      const w = window as unknown as { __posted: WebviewToHost[]; __violations: string[]; __state: unknown };
      return { posted: w.__posted, violations: w.__violations, state: w.__state };
    });

  for (const theme of ['light', 'dark'] as const) {
    it(`renders a plan in the ${theme} theme (screenshot test-results/webview-plan-${theme}.png)`, async () => {
      const page = await open(theme);
      await send(page, { type: 'plan', plan });
      await page.screenshot({ path: `${RESULTS}/webview-plan-${theme}.png`, fullPage: true });
      const r = await recorded(page);
      assert.deepEqual(r.posted, [{ type: 'ready' }]);
      assert.deepEqual(r.violations, []);
      await page.close();
    });
  }

  it('keeps every string of the view model as text', async () => {
    const page = await open('light');
    await send(page, { type: 'plan', plan });
    assert.equal(await page.locator('img').count(), 0);
    const text = await page.locator('#root').innerText();
    assert.ok(text.includes(`0/5 nodes are available: 5 ${HOSTILE}.`));
    // The reason, the pod in worker-a's list and in the assignments; the plugin inside its badge.
    assert.equal(await page.getByText(HOSTILE, { exact: true }).count(), 3);
    assert.equal(await page.locator('.unplaced .badge').nth(1).innerText(), `Filter · ${HOSTILE}`);
    assert.deepEqual(dialogs, []);
    await page.close();
  });

  it('shows each unplaced pod with its stage, plugin, reason and the upstream message', async () => {
    const page = await open('light');
    await send(page, { type: 'plan', plan });
    const cards = page.locator('.unplaced');
    assert.equal(await cards.count(), 2);
    const first = cards.first();
    assert.equal(await first.locator('.badge').innerText(), 'Filter · NodeResourcesFit');
    assert.equal(await first.locator('.reason').innerText(), 'Insufficient cpu');
    assert.equal(await first.locator('.message').innerText(), plan.unplaced[0]?.message);
    assert.deepEqual(await first.locator('.reasons li').allInnerTexts(), ['3 × node(s) had untolerated taint {dedicated: gpu}', '2 × Insufficient cpu']);
    assert.equal(await page.locator('.summary').innerText(), '3 pods placed, 2 not placed');
    await page.close();
  });

  it('draws requested and planned use per node as bars sized by the server numbers', async () => {
    const page = await open('light');
    await send(page, { type: 'plan', plan });
    const nodeA = page.locator('.node').first();
    assert.deepEqual(await nodeA.locator('.use .amount').allInnerTexts(), ['5 cores / 8 cores (3 cores planned)', '10 GiB / 32 GiB (6 GiB planned)', '14 / 110 (2 planned)']);
    const widths = await nodeA.locator('.use').first().evaluate((use) => ['.requested', '.planned'].map((s) => (use.querySelector(s) as HTMLElement).style.width));
    assert.deepEqual(widths, ['25%', '37.5%']);
    // worker-b: 3 + 1.5 cores asked of 4: over, the bar is cut at its end.
    const over = page.locator('.node').nth(1).locator('.use.over');
    assert.equal(await over.count(), 1);
    assert.equal(await over.locator('.amount').innerText(), '4.5 cores / 4 cores (1.5 cores planned)');
    await page.close();
  });

  it('posts what the user asks for: explain, open pod or node, re-run, schedule now', async () => {
    const page = await open('light');
    await send(page, { type: 'plan', plan });
    await page.locator('.unplaced').first().getByRole('button', { name: 'Explain' }).click();
    await page.locator('.unplaced').first().getByRole('link', { name: 'etl-3' }).click();
    await page.locator('.node h3').first().getByRole('link', { name: 'worker-a' }).click();
    await page.getByRole('button', { name: 'Re-run preview' }).click();
    await page.getByRole('button', { name: 'Schedule now' }).click();
    const r = await recorded(page);
    assert.deepEqual(r.posted, [
      { type: 'ready' },
      { type: 'explainPod', namespace: 'analytics', pod: 'etl-3' },
      { type: 'reveal', kind: 'Pod', namespace: 'analytics', name: 'etl-3' },
      { type: 'reveal', kind: 'Node', name: 'worker-a' },
      { type: 'refresh' },
      { type: 'scheduleNow', namespace: 'analytics', trigger: 'nightly-batch' },
    ]);
    // The view is kept for a panel VS Code reloads.
    assert.deepEqual(r.state, { type: 'plan', plan });
    await page.close();
  });

  it('shows the saved view at once when VS Code reloads the panel', async () => {
    const page = await open('light', { type: 'plan', plan });
    await page.waitForSelector('#root[data-view="plan"]');
    assert.equal(await page.locator('h1').innerText(), 'Plan for nightly-batch');
    await page.close();
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`renders an explanation in the ${theme} theme (screenshot test-results/webview-explanation-${theme}.png)`, async () => {
      const page = await open(theme);
      await send(page, {
        type: 'explanation',
        explanation: {
          pod: 'etl-3',
          namespace: 'analytics',
          podSet: 'nightly-batch',
          schedulerName: 'podset-planner-scheduler',
          profile: 'podset-planner-scheduler',
          requests: [
            { resource: 'cpu', unit: 'millicores', amount: 1500 },
            { resource: 'memory', unit: 'bytes', amount: 3 * GIB },
          ],
          message: '0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {dedicated: gpu}.',
          nodes: { total: 5, evaluated: 5, feasible: 0 },
          filters: [
            { plugin: 'NodeUnschedulable', evaluated: 5, passed: 5 },
            { plugin: 'TaintToleration', evaluated: 5, passed: 2 },
            { plugin: 'NodeResourcesFit', evaluated: 2, passed: 0 },
          ],
          rejections: [
            { stage: 'Filter', plugin: 'TaintToleration', reason: 'node(s) had untolerated taint {dedicated: gpu}', nodes: ['gpu-1', 'gpu-2', 'gpu-3'] },
            { stage: 'Filter', plugin: 'NodeResourcesFit', reason: 'Insufficient cpu', nodes: ['worker-a', 'worker-b'] },
          ],
          scores: [],
        },
      });
      await page.screenshot({ path: `${RESULTS}/webview-explanation-${theme}.png`, fullPage: true });
      assert.equal(await page.locator('h1').innerText(), 'Why etl-3');
      assert.deepEqual(await page.locator('tbody').nth(1).locator('tr').first().locator('td').allInnerTexts(), ['Filter', 'TaintToleration', 'node(s) had untolerated taint {dedicated: gpu}', 'gpu-1, gpu-2, gpu-3']);
      await page.close();
    });
  }

  it('lists the history and asks to compare two picked plans, older first', async () => {
    const page = await open('dark');
    const entry = (id: number, placed: number) => ({ id, podSet: 'nightly-batch', namespace: 'analytics', trigger: 'nightly-batch', planner: 'default', profile: 'p', status: 'draft' as const, createdAt: Date.UTC(2025, 2, 14, 9, id), placed, unplaced: 6 - placed });
    await send(page, { type: 'history', entries: [entry(9, 6), entry(7, 4), entry(3, 4)], next: 3 });
    await page.screenshot({ path: `${RESULTS}/webview-history-dark.png`, fullPage: true });
    const compare = page.getByRole('button', { name: 'Compare selected' });
    assert.equal(await compare.isDisabled(), true);
    const boxes = page.locator('tbody input[type=checkbox]');
    await boxes.nth(0).check();
    await boxes.nth(2).check();
    await compare.click();
    await page.getByRole('button', { name: 'Older plans' }).click();
    await page.getByRole('link', { name: '#7' }).click();
    assert.deepEqual((await recorded(page)).posted.slice(1), [{ type: 'comparePlans', from: 3, to: 9 }, { type: 'moreHistory', before: 3 }, { type: 'openPlan', id: 7 }]);
    await page.close();
  });

  it('shows a comparison and an error', async () => {
    const page = await open('light');
    const entry = (id: number) => ({ id, podSet: 'nightly-batch', namespace: 'analytics', planner: 'default', profile: 'p', status: 'draft' as const, createdAt: Date.UTC(2025, 2, 14, 9, id), placed: 4, unplaced: 2 });
    await send(page, {
      type: 'diff',
      diff: { from: entry(3), to: entry(9), moved: [{ pod: 'etl-0', from: 'worker-a', to: 'worker-b' }], becamePlaced: [], becameUnplaced: [{ pod: 'etl-2', was: 'worker-b', message: '0/5 nodes are available: 5 Insufficient memory.' }], added: [], removed: [], unchanged: 3, stillUnplaced: 1 },
    });
    assert.deepEqual(await page.locator('h2').allInnerTexts(), ['Moved', 'No longer placed']);
    await send(page, { type: 'error', message: HOSTILE });
    assert.equal(await page.getByRole('alert').innerText(), HOSTILE);
    assert.equal(await page.locator('img').count(), 0);
    await page.close();
  });
});
