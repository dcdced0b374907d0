// The whole extension in a real VS Code workbench: code-server runs the built extension on a copy
// of examples/cluster plus a file with a deliberate problem, and headless Chromium drives the UI
// the way a user would. The first run on a machine installs code-server (see workbench.ts).
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { installCodeServer, launchChromium, ROOT, runCommand, stageExtension, startCodeServer, type CodeServer } from './workbench';

// A plan that puts a pod that does not tolerate the GPU node's taint on that node.
const BAD_PLAN = `apiVersion: planner.ciena.io/v1alpha1
kind: SchedulePlan
metadata:
  name: tainted
  namespace: p-taint
  labels:
    planner.ciena.io/pod-set: tainted
spec:
  plan:
    - pod: tainted-0
      node: gpu-c2
---
apiVersion: v1
kind: Pod
metadata: { name: tainted-0, namespace: p-taint, labels: { planner.ciena.io/pod-set: tainted } }
spec:
  schedulerName: podset-planner-scheduler
  containers: [{ name: main, resources: { requests: { cpu: 500m, memory: 512Mi } } }]
`;

const SCREENSHOTS = path.join(ROOT, 'test-results/e2e');
const STEP_MS = 60_000;

describe('the extension in a VS Code workbench (code-server + Chromium)', function () {
  // The first run on a fresh machine installs code-server; later runs start in seconds.
  this.timeout(30 * 60_000);

  let dir = '';
  let server: CodeServer | undefined;
  let browser: BrowserContext | undefined;
  let page: Page;

  before(async function () {
    const started = performance.now();
    installCodeServer(25 * 60_000);
    console.log(`      code-server ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    dir = await mkdtemp(path.join(tmpdir(), 'podplan-e2e-'));
    const workspace = path.join(dir, 'workspace');
    await cp(path.join(ROOT, 'examples/cluster'), workspace, { recursive: true });
    await writeFile(path.join(workspace, 'bad-plan.yaml'), BAD_PLAN);
    const extensionsDir = path.join(dir, 'extensions');
    await stageExtension(extensionsDir);
    await mkdir(SCREENSHOTS, { recursive: true });

    server = await startCodeServer({ workspace, userDataDir: path.join(dir, 'user-data'), extensionsDir, timeoutMs: STEP_MS });
    browser = await launchChromium(path.join(dir, 'chromium'));
    browser.setDefaultTimeout(STEP_MS);
    page = await browser.newPage();
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor();
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && browser) {
      await page.screenshot({ path: path.join(SCREENSHOTS, `failed-${this.currentTest.title.replace(/\W+/g, '-')}.png`) }).catch(() => undefined);
      if (server) console.log(server.output());
    }
  });

  it('shows the language server\'s diagnostic for a plan that breaks a taint in the Problems panel', async () => {
    await page.getByRole('treeitem', { name: 'bad-plan.yaml' }).click();
    await page.locator('.tab.active', { hasText: 'bad-plan.yaml' }).waitFor();
    await runCommand(page, 'Problems: Focus on Problems View');
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'pod tainted-0 cannot run on node gpu-c2' });
    await problem.waitFor();
    const text = await problem.innerText();
    assert.match(text, /node\(s\) had untolerated taint \{nvidia\.com\/gpu: present\} \(TaintToleration\)/);
    assert.match(text, /podplan\s*\(?plan\/node-infeasible/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'problems.png') });
  });

  it('moves the pod with the server\'s quick fix, after which the Problems panel is empty', async () => {
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+G');
    await page.keyboard.type('11:13');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: /Move tainted-0 to \S+, the best node where it fits/ });
    await fix.waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'quick-fix.png') });
    const node = /Move tainted-0 to (\S+),/.exec(await fix.innerText())?.[1];
    // The preferred fix comes focused; the widget's pointer block swallows clicks, so apply by key.
    assert.match((await fix.getAttribute('class')) ?? '', /\bfocused\b/);
    await page.keyboard.press('Enter');
    await page.locator('.markers-panel', { hasText: 'No problems have been detected in the workspace.' }).waitFor();
    // Monaco renders spaces as no-break spaces.
    const shown = (await page.locator('.monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(shown, new RegExp(`node: ${node}\\b`));
    await page.screenshot({ path: path.join(SCREENSHOTS, 'quick-fix-applied.png') });
  });

  it('previews a pod set\'s plan from the command palette, and the plan webview lists where each pod goes', async () => {
    await runCommand(page, 'Podplan: Preview Plan');
    const input = page.locator('.quick-input-widget input');
    await input.fill('nightly-batch');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'nightly-batch' }).first().waitFor();
    await input.press('Enter');

    // A webview's page sits in an iframe inside the workbench's webview iframe.
    const view = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const assignments = view.locator('section', { has: view.locator('h2', { hasText: 'Assignments' }) }).locator('tbody tr');
    await assignments.first().waitFor();
    const rows = await assignments.evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent?.trim() ?? '')));
    assert.ok(rows.length > 0);
    for (const [pod, node] of rows) {
      assert.match(pod ?? '', /^(etl|feature-store)-/);
      assert.match(node ?? '', /^node-[abc]\d$/);
    }
    assert.match(await view.locator('p.summary').innerText(), new RegExp(`^${rows.length} pods? placed, 0 not placed`));
    await page.screenshot({ path: path.join(SCREENSHOTS, 'plan-preview.png') });
  });

  // The package ships no better-sqlite3 (vsce --no-dependencies), and the extension host's Node 20
  // has no node:sqlite: the server loads the history lazily, so planning works and history says why not.
  it('runs without plan history when no SQLite driver loads, and says so where the history would be', async () => {
    await runCommand(page, 'Podplan: Show Plan History');
    const view = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const alert = view.locator('p.error[role=alert]');
    await alert.waitFor();
    assert.match(await alert.innerText(), /history unavailable: no SQLite driver could be loaded, plan history is off \(better-sqlite3: .*; node:sqlite: .*\)/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'history-off.png') });
  });
});
