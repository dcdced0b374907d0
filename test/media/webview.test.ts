// The Podplan panel in headless Chromium (harness.ts): each view is sent its view model (hostile
// strings included, to prove they stay text), the DOM, the canvas and the posted intents are
// checked, and screenshots in the light, dark and high contrast themes go to test-results/.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { explainPod, planPodSet, planView, previewPodSet } from '../../src/server/service/planning';
import { workspaceOf } from '../server/service/fixtures';
import type { Browser, Page } from 'playwright-core';
import type { HostToWebview } from '../../src/protocol/webview';
import { launch, openPanel, recorded, send, THEMES, type Theme } from './harness';
import { bigPlan, explanation, HOSTILE, plan, preemptingExplanation, unplacedExplanation } from './models';

const RESULTS = 'test-results';
const nav = (entry: number, back = false, forward = false) => ({ entry, back, forward });

describe('webview in headless Chromium', function () {
  let browser: Browser;
  const dialogs: string[] = [];
  const errors: string[] = [];

  before(async function () {
    browser = await launch();
    mkdirSync(RESULTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
  });

  afterEach(() => {
    assert.deepEqual(errors.splice(0), [], 'errors in the page');
    assert.deepEqual(dialogs.splice(0), [], 'dialogs opened by the page');
  });

  const open = (theme: Theme, saved?: unknown, width?: number): Promise<Page> =>
    openPanel(browser, theme, { saved, errors, dialogs, ...(width !== undefined ? { width } : {}) });
  const tab = (page: Page, id: string) => page.locator(`vscode-tab-header[data-tab="${id}"]`).click();
  /** Pixels of the map's canvas that are not transparent: the tiles were drawn. */
  const painted = (page: Page) =>
    page.locator('.node-map canvas').evaluate((c: HTMLCanvasElement) => {
      const data = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? new Uint8ClampedArray();
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) n++;
      return n;
    });

  async function violationsAndPosts(page: Page) {
    const r = await recorded(page);
    assert.deepEqual(r.violations, [], 'CSP violations');
    return r.posted;
  }

  for (const theme of Object.keys(THEMES) as Theme[]) {
    it(`renders the plan's node map, funnel and unplaced groups and an explanation's matrix in the ${theme} theme (screenshots test-results/webview-*-${theme}.png)`, async () => {
      const page = await open(theme);
      await send(page, { type: 'plan', plan, nav: nav(1) });
      await page.locator('.node-map canvas').click({ position: { x: 15, y: 15 } });
      await page.screenshot({ path: `${RESULTS}/webview-plan-map-${theme}.png`, fullPage: true });
      await tab(page, 'pods');
      await page.screenshot({ path: `${RESULTS}/webview-plan-pods-${theme}.png`, fullPage: true });
      await tab(page, 'unplaced');
      await page.screenshot({ path: `${RESULTS}/webview-plan-unplaced-${theme}.png`, fullPage: true });
      await tab(page, 'funnel');
      await page.locator('.step').nth(3).click();
      await page.screenshot({ path: `${RESULTS}/webview-plan-funnel-${theme}.png`, fullPage: true });
      await send(page, { type: 'explanation', explanation: explanation(40), nav: nav(2, true) });
      await page.locator('.step').nth(4).click();
      await page.screenshot({ path: `${RESULTS}/webview-explain-funnel-${theme}.png`, fullPage: true });
      await tab(page, 'matrix');
      await page.screenshot({ path: `${RESULTS}/webview-matrix-${theme}.png`, fullPage: true });
      assert.deepEqual(await violationsAndPosts(page), [{ type: 'ready' }]);
      await page.close();
    });
  }

  it('keeps every string of the view model as text', async () => {
    const page = await open('light');
    await send(page, { type: 'plan', plan });
    await page.locator('.node-map canvas').click({ position: { x: 15, y: 15 } });
    assert.match(await page.locator('.node-detail').innerText(), /worker-a/);
    assert.ok((await page.locator('.node-detail').innerText()).includes(HOSTILE));
    await tab(page, 'unplaced');
    assert.ok((await page.locator('.unplaced').nth(1).innerText()).includes(`0/3 nodes are available: 3 ${HOSTILE}.`));
    await tab(page, 'funnel');
    await page.locator('.step').nth(3).click();
    assert.ok((await page.locator('.step-detail').innerText()).includes(HOSTILE));
    await send(page, { type: 'error', message: HOSTILE });
    assert.equal(await page.getByRole('alert').innerText(), HOSTILE);
    assert.equal(await page.locator('img').count(), 0);
    await violationsAndPosts(page);
    await page.close();
  });

  it('node map: every node a tile; search by name, zone, label and use; sort; the selected node’s detail; keyboard', async () => {
    const page = await open('dark');
    await send(page, { type: 'plan', plan });
    assert.ok((await painted(page)) > 0);
    const count = page.locator('.map-view .count[role=status]');
    assert.equal(await count.innerText(), '3 of 3 nodes');
    const search = page.locator('vscode-textfield.search input');
    const cases: Array<[string, string]> = [
      ['worker-b', '1 of 3 nodes'],
      ['zone:z2', '2 of 3 nodes'],
      ['dedicated=gpu', '1 of 3 nodes'],
      ['cpu>60', '2 of 3 nodes'],
      ['etl-1', '1 of 3 nodes'],
      ['zone:z2 cpu<10', '1 of 3 nodes'],
      ['', '3 of 3 nodes'],
    ];
    for (const [query, expected] of cases) {
      await search.fill(query);
      // The filter runs once the keys pause.
      await page.locator('.map-view .count[role=status]', { hasText: new RegExp(`^${expected}$`) }).waitFor();
      assert.equal(await count.innerText(), expected, query);
    }
    // Sorted by cpu use, the first tile is worker-b (4.5 of 4 cores).
    await page.locator('.map-view vscode-single-select').first().click();
    await page.getByRole('option', { name: 'by cpu use' }).click();
    await page.locator('.node-map canvas').click({ position: { x: 15, y: 15 } });
    assert.match(await page.locator('.node-detail h3').innerText(), /^worker-b/);
    assert.deepEqual(await page.locator('.node-detail .use .amount').allInnerTexts(), [
      '4.5 cores / 4 cores (1.5 cores planned)',
      '5 GiB / 32 GiB (1 GiB planned)',
      '4 / 110 (1 planned)',
    ]);
    // The keyboard: the map is a grid whose active cell names the node under the cursor.
    await page.locator('.node-map').focus();
    await page.keyboard.press('ArrowRight');
    const active = await page.locator('.node-map').getAttribute('aria-activedescendant');
    assert.ok(active);
    assert.match(await page.locator(`#${active}`).innerText(), /^worker-a, zone z1: cpu 63%/);
    await page.keyboard.press('Enter');
    assert.match(await page.locator('.node-detail h3').innerText(), /^worker-a/);
    await page.locator('.node-detail').getByRole('button', { name: 'Explain' }).first().click();
    // Coloured by owner: the legend names the owners of the planned pods.
    await page.locator('.map-view label.field', { hasText: 'Colour' }).locator('vscode-single-select').click();
    await page.getByRole('option', { name: 'owner of planned pods' }).click();
    assert.match(
      await page.locator('.map-view .legend').innerText(),
      /^Tile: owner with the most planned pods on the node\. +Job\/etl \(3\)/,
    );
    assert.deepEqual((await violationsAndPosts(page)).slice(1), [
      {
        type: 'explainPod',
        namespace: 'analytics',
        pod: 'etl-0',
        inPlan: { podSet: 'nightly-batch', trigger: 'nightly-batch', historyId: 42 },
      },
    ]);
    await page.close();
  });

  it('pods: every placed pod with its owner, node and score; searchable, sortable, explainable in the plan', async () => {
    const page = await open('light');
    await send(page, { type: 'plan', plan });
    await tab(page, 'pods');
    const names = () => page.locator('.pods-table .matrix-body .name').allInnerTexts();
    // By owner (all Job/etl here), then by name.
    assert.deepEqual(await names(), [HOSTILE, 'etl-0', 'etl-1']);
    await page.locator('.pods-table [role=columnheader]').filter({ hasText: 'Score' }).locator('button').click();
    assert.deepEqual(await names(), ['etl-0', 'etl-1', HOSTILE]);
    await page.locator('.pods-table [role=columnheader]').filter({ hasText: 'Node' }).locator('button').click();
    assert.equal(await page.locator('.pods-table [role=columnheader]').filter({ hasText: 'Node' }).getAttribute('aria-sort'), 'ascending');
    await page.locator('.pods-view vscode-textfield input').fill('worker-b');
    assert.deepEqual(await names(), ['etl-1']);
    assert.equal(await page.locator('.pods-view .count').innerText(), '1 of 3 pods');
    await page.locator('.pods-table .matrix-body').getByRole('button', { name: 'Explain' }).click();
    assert.deepEqual((await violationsAndPosts(page)).slice(1), [
      {
        type: 'explainPod',
        namespace: 'analytics',
        pod: 'etl-1',
        inPlan: { podSet: 'nightly-batch', trigger: 'nightly-batch', historyId: 42 },
      },
    ]);
    await page.close();
  });

  it('unplaced pods: one card per distinct reason with its pods, each pod explainable', async () => {
    const page = await open('light');
    await send(page, { type: 'plan', plan });
    await tab(page, 'unplaced');
    const cards = page.locator('.unplaced');
    assert.equal(await cards.count(), 2);
    assert.equal(await cards.first().locator('.reason').innerText(), 'Insufficient cpu');
    assert.equal(await cards.first().locator('.badge').innerText(), 'Filter · NodeResourcesFit');
    assert.deepEqual(await cards.first().locator('.pod-chip a').allInnerTexts(), ['etl-3', 'etl-4']);
    await cards.first().locator('.pod-chip').nth(1).getByRole('button', { name: 'Explain' }).click();
    assert.deepEqual((await violationsAndPosts(page)).slice(1), [
      {
        type: 'explainPod',
        namespace: 'analytics',
        pod: 'etl-4',
        inPlan: { podSet: 'nightly-batch', trigger: 'nightly-batch', historyId: 42 },
      },
    ]);
    await page.close();
  });

  it('funnel: each step drawn to scale; a step opens the nodes it rejected and why, and the pods it stopped', async () => {
    const page = await open('light');
    await send(page, { type: 'plan', plan });
    await tab(page, 'funnel');
    assert.deepEqual(await page.locator('.step-name').allInnerTexts(), [
      'Sort',
      'PreFilter',
      'Filter · TaintToleration',
      'Filter · NodeResourcesFit',
      'Score',
      'Select host',
    ]);
    assert.equal(
      await page
        .locator('.step')
        .nth(3)
        .locator('.kept')
        .evaluate((e: HTMLElement) => e.style.width),
      '40%',
    );
    await page.locator('.step').nth(3).click();
    assert.equal(await page.locator('.step').nth(3).getAttribute('aria-pressed'), 'true');
    assert.deepEqual(await page.locator('.step-detail .rejection .reason').allInnerTexts(), ['4 × Insufficient cpu', `2 × ${HOSTILE}`]);
    await page.locator('.step-detail').getByRole('link', { name: 'worker-b' }).click();
    await page.locator('.step-detail .pod-chip').first().getByRole('button', { name: 'Explain' }).click();
    assert.deepEqual((await violationsAndPosts(page)).slice(1), [
      { type: 'reveal', kind: 'Node', name: 'worker-b' },
      {
        type: 'explainPod',
        namespace: 'analytics',
        pod: 'etl-3',
        inPlan: { podSet: 'nightly-batch', trigger: 'nightly-batch', historyId: 42 },
      },
    ]);
    await page.close();
  });

  it('explains a planned pod about its planned node, with the row of that node marked in the matrix', async () => {
    const page = await open('light');
    const x = explanation(40);
    const planned = x.plannedNode ?? '';
    await send(page, { type: 'explanation', explanation: x });
    assert.equal(await page.locator('.verdict-text').innerText(), `${planned}, the planned node, fits: ranked 3 of 32 feasible nodes.`);
    assert.match(await page.locator('dl.verdict').innerText(), new RegExp(`Planned on\\s+${planned} by nightly-batch-plan`));
    await tab(page, 'matrix');
    assert.equal(await page.locator('.matrix-row.focus .name').innerText(), planned);
    assert.equal(await page.locator('.matrix-row.focus [role=gridcell]').last().innerText(), '3');
    await page.getByRole('button', { name: `Go to ${planned}` }).click();
    assert.equal(await page.locator('.matrix-row.active .name').innerText(), planned);
    await page.close();
  });

  it("says what a stored plan's pod was judged on, or why no node was (judgedOn), under the verdict (screenshot test-results/webview-judged-on-light.png)", async () => {
    const page = await open('light');
    const note =
      'Plan #3 was recorded before the plan history kept the cluster a plan is made on: the planner’s cycle is shown, but no node’s verdict is judged, since today’s workspace may not be the cluster that plan saw.';
    await send(page, { type: 'explanation', explanation: { ...unplacedExplanation(12), cycle: 'planner', judgedOn: note } });
    assert.equal(await page.locator('p.judged-on').innerText(), note);
    await page.screenshot({ path: `${RESULTS}/webview-judged-on-light.png` });
    await send(page, { type: 'explanation', explanation: unplacedExplanation(12) });
    assert.equal(await page.locator('p.judged-on').count(), 0, 'none for a pod judged now');
    await page.close();
  });

  it('matrix: filter verdicts per plugin, scores per plugin, sortable by any column, keyboard rows, closest node of an unplaced pod', async () => {
    const page = await open('light');
    await send(page, { type: 'explanation', explanation: unplacedExplanation(200) });
    await tab(page, 'matrix');
    assert.match(await page.locator('.callout').innerText(), /^Closest node: node-0002 — it passed 5 of 9 filter plugins/);
    await page.getByRole('button', { name: 'Show its row' }).click();
    assert.equal(await page.locator('.matrix-row.active .name').innerText(), 'node-0002');
    await page.screenshot({ path: `${RESULTS}/webview-matrix-unplaced-light.png`, fullPage: true });
    await send(page, { type: 'explanation', explanation: explanation(200), nav: nav(3) });
    await tab(page, 'matrix');
    const first = page.locator('.matrix-body .matrix-row').first();
    const header = (name: string) => page.locator('.matrix-head [role=columnheader]').filter({ hasText: name }).first();
    // Rejected rows first; one rejected by NodeResourcesFit: ✓ up to it, ✗ there, · after.
    await header('Verdict').locator('button').click();
    assert.equal(await first.locator('.verdict').innerText(), 'rejected');
    const verdicts = await page
      .locator('.matrix-body .matrix-row.rejected')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('.filter')].map((c) => c.textContent).join('')));
    assert.ok(verdicts.includes('✓✓✓✓✓✗···'), verdicts.join(' '));
    assert.ok(verdicts.includes('✓✓✗······'), verdicts.join(' '));
    const why = await page
      .locator('.matrix-body .filter.fail')
      .evaluateAll((cells) => [...new Set(cells.map((c) => c.getAttribute('title')))].sort());
    assert.deepEqual(why, ['NodeResourcesFit: Insufficient cpu', 'TaintToleration: node(s) had untolerated taint {dedicated: gpu}']);
    await header('Total').locator('button').click();
    assert.equal(await header('Total').getAttribute('aria-sort'), 'descending');
    const totals = await page.locator('.matrix-body .matrix-row .total').allInnerTexts();
    const numbers = totals.map(Number);
    assert.deepEqual(
      numbers,
      [...numbers].sort((a, b) => b - a),
    );
    await header('Node').locator('button').click();
    assert.equal(await first.locator('.name').innerText(), 'node-0000');
    await header('Node').locator('button').click();
    assert.equal(await first.locator('.name').innerText(), 'node-0199');
    // Keyboard: the grid keeps focus and points at its active row.
    await page.locator('.matrix').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const active = await page.locator('.matrix').getAttribute('aria-activedescendant');
    assert.equal(await page.locator(`#${active} .name`).innerText(), 'node-0198');
    await page.keyboard.press('Enter');
    assert.deepEqual((await violationsAndPosts(page)).slice(1), [{ type: 'reveal', kind: 'Node', name: 'node-0198' }]);
    await page.close();
  });

  it('node map with DRA: the selected node’s devices per DeviceClass, allocated, planned and free (screenshot test-results/webview-node-devices-dark.png)', async () => {
    // The plan the server makes for test/fixtures/dra/gang.yaml on examples/dra (in process, as the panel gets it).
    const files = {
      ...Object.fromEntries(['classes', 'nodes', 'slices'].map((f) => [`dra/${f}.yaml`, readFileSync(`examples/dra/${f}.yaml`, 'utf8')])),
      'dra/gang.yaml': readFileSync('test/fixtures/dra/gang.yaml', 'utf8'),
    };
    const analysis = workspaceOf(files).analysis();
    const made = planPodSet(analysis, { namespace: 'default', podSet: 'gang', trigger: 'gang' });
    assert.ok(made.ok);
    const view = planView(made.value, analysis);
    const used = view.nodes.find((n) => n.pods.length > 0);
    assert.ok(used);
    const page = await open('dark');
    await send(page, { type: 'plan', plan: view });
    await page.locator('vscode-textfield.search input').fill(used.node);
    await page.locator('.map-view .count[role=status]', { hasText: /^1 of 5 nodes$/ }).waitFor();
    await page.locator('.node-map canvas').click({ position: { x: 15, y: 15 } });
    assert.match(await page.locator('.node-detail h3').innerText(), new RegExp(`^${used.node}`));
    assert.match(await page.locator('.node-detail').innerText(), /Devices \(DRA\)/);
    const bars = await page
      .locator('.node-detail .use.devices')
      .evaluateAll((els) =>
        els.map((e) => [e.querySelector('.resource')?.textContent, e.querySelector('.amount')?.textContent, e.getAttribute('title')]),
      );
    const planned = used.pods.length;
    assert.deepEqual(
      bars.find((b) => b[0] === 'gpu.example.com'),
      [
        'gpu.example.com',
        `${planned} / 4 (${planned} planned)`,
        `gpu.example.com: 4 devices, 0 allocated, ${planned} planned, ${4 - planned} free`,
      ],
    );
    await page.screenshot({ path: `${RESULTS}/webview-node-devices-dark.png`, fullPage: true });
    await violationsAndPosts(page);
    await page.close();
  });

  it('node map of a set planned beside a written plan it depends on: the pods placed before the plan in the node’s detail and bars (screenshot test-results/webview-node-before-light.png)', async () => {
    // What the server sends for second of test/fixtures/workspaces/depends-on-written (in process).
    const analysis = workspaceOf({
      'cluster.yaml': readFileSync('test/fixtures/workspaces/depends-on/cluster.yaml', 'utf8'),
      'podsets.yaml': readFileSync('test/fixtures/workspaces/depends-on-written/podsets.yaml', 'utf8'),
    }).analysis();
    const made = await previewPodSet(analysis, { namespace: 'jobs', name: 'second' });
    assert.ok(made.ok);
    const view = planView(made.value, analysis);
    const used = view.assignments[0]?.node;
    assert.ok(used);
    const page = await open('light');
    await send(page, { type: 'plan', plan: view });
    await page.locator('vscode-textfield.search input').fill(used);
    await page.locator('.map-view .count[role=status]', { hasText: /^1 of 3 nodes$/ }).waitFor();
    await page.locator('.node-map canvas').click({ position: { x: 15, y: 15 } });
    const detail = await page.locator('.node-detail').innerText();
    assert.match(detail, /0 pods bound · 1 pod placed before the plan · 1 pod planned/);
    assert.match(detail, /Placed before the plan \(other sets’ plans\)\s+jobs\/first-\d/);
    const cpu = page.locator('.node-detail .use', { has: page.locator('.resource', { hasText: /^cpu$/ }) });
    assert.equal(await cpu.locator('.amount').innerText(), '4 cores / 4 cores (1 core planned, 3 cores placed before)');
    assert.equal(await cpu.getAttribute('title'), 'cpu: 0m bound, 3 cores placed before the plan, 1 core planned, 4 cores allocatable');
    const widths = await cpu.locator('.bar span').evaluateAll((els) => els.map((e) => [e.className, (e as HTMLElement).style.width]));
    assert.deepEqual(widths, [
      ['requested', '0%'],
      ['before', '75%'],
      ['planned', '25%'],
    ]);
    await page.screenshot({ path: `${RESULTS}/webview-node-before-light.png`, fullPage: true });
    await violationsAndPosts(page);
    await page.close();
  });

  it('a DRA pod: the Devices page lists per node each device request not met and why; a rejected matrix row says it in its tooltip (screenshot test-results/webview-devices-light.png)', async () => {
    // The view model the server makes for examples/dra's too-big pod (in process, as the panel gets it).
    const files = Object.fromEntries(
      ['classes', 'nodes', 'pods', 'slices'].map((f) => [`dra/${f}.yaml`, readFileSync(`examples/dra/${f}.yaml`, 'utf8')]),
    );
    const analysis = workspaceOf(files).analysis();
    const tooBig = analysis.pod('default', 'too-big');
    assert.ok(tooBig);
    const page = await open('light');
    await send(page, { type: 'explanation', explanation: explainPod(tooBig, analysis) });
    await tab(page, 'devices');
    const rows = await page
      .locator('table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));
    assert.equal(rows.length, 5);
    assert.ok(
      rows.includes('gpu-a1 claim default/eight-gpus, request gpus (8 × gpu.example.com): only 4 matching devices on the node'),
      rows.join('\n'),
    );
    assert.ok(
      rows.includes('cpu-1 claim default/eight-gpus, request gpus (8 × gpu.example.com): the node has no devices'),
      rows.join('\n'),
    );
    await page.screenshot({ path: `${RESULTS}/webview-devices-light.png`, fullPage: true });
    await tab(page, 'matrix');
    const why = await page.locator('.matrix-body .filter.fail').first().getAttribute('title');
    assert.match(
      why ?? '',
      /^DynamicResources: cannot allocate all claims\n• claim default\/eight-gpus, request gpus \(8 × gpu\.example\.com\): /,
    );
    await violationsAndPosts(page);
    await page.close();
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`preemption: the victims on the chosen node, each other candidate with what it lost on, the nodes it could not help (${theme}; screenshot test-results/webview-preemption-${theme}.png)`, async () => {
      const page = await open(theme);
      await send(page, { type: 'explanation', explanation: preemptingExplanation() });
      await tab(page, 'preemption');
      assert.equal(await page.locator('vscode-tab-header[data-tab="preemption"]').innerText(), 'Preemption (4)');
      assert.equal(
        await page.locator('.preemption .callout').innerText(),
        'Evicting data/batch-3, data/batch-4 from node-0002 makes room.',
      );
      const rows = await page
        .locator('.preemption section')
        .first()
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
      assert.deepEqual(rows, [
        ['node-0002', 'data/batch-3 (1000), data/batch-4 (1000)', '0', 'chosen'],
        [
          'node-0005',
          'data/batch-7 (1000), data/batch-8 (1000), data/batch-9 (1000)',
          '0',
          'lost: node-0002 has smaller sum of victim priorities',
        ],
        ['node-0007', 'shop/cache-0 (5000)', '0', 'lost: node-0002 has lower highest victim priority'],
        ['node-0009', `data/${HOSTILE} (10, breaks a PDB)`, '1', 'lost: node-0002 has fewer PDB violations'],
      ]);
      assert.deepEqual(await page.locator('.preemption section').nth(1).locator('tbody tr').allInnerTexts(), [
        'No preemption victims found for incoming pod\t6 (node-0000, node-0001, node-0003, node-0004, node-0006, …)',
        'Insufficient cpu\t2 (node-0010, node-0011)',
      ]);
      assert.equal(await page.locator('img').count(), 0);
      await page.screenshot({ path: `${RESULTS}/webview-preemption-${theme}.png`, fullPage: true });
      // A victim opens in the editor; a candidate node too.
      await page.locator('.preemption .callout a').first().click();
      await page.locator('.preemption tbody a', { hasText: 'node-0007' }).click();
      assert.deepEqual((await violationsAndPosts(page)).slice(1), [
        { type: 'reveal', kind: 'Pod', namespace: 'data', name: 'batch-3' },
        { type: 'reveal', kind: 'Node', name: 'node-0007' },
      ]);
      await page.close();
    });
  }

  it('a plan that evicts running pods (the profile lets plans preempt) says so above its views (screenshot test-results/webview-plan-evicts-light.png)', async () => {
    const page = await open('light');
    await send(page, {
      type: 'plan',
      plan: {
        ...plan,
        victims: [
          { pod: 'batch/filler-1', node: 'worker-a', by: 'etl-0' },
          { pod: `batch/${HOSTILE}`, node: 'worker-b', by: 'etl-1' },
        ],
      },
    });
    assert.equal(
      await page.locator('.callout[role=note]').innerText(),
      `This plan evicts 2 running pods: batch/filler-1 from worker-a for etl-0, batch/${HOSTILE} from worker-b for etl-1.`,
    );
    assert.equal(await page.locator('img').count(), 0);
    await page.screenshot({ path: `${RESULTS}/webview-plan-evicts-light.png` });
    await page.locator('.callout[role=note] a').first().click();
    assert.deepEqual((await violationsAndPosts(page)).slice(1), [{ type: 'reveal', kind: 'Pod', namespace: 'batch', name: 'filler-1' }]);
    await send(page, { type: 'plan', plan, nav: nav(2) });
    assert.equal(await page.locator('.callout[role=note]').count(), 0, 'a plan that evicts nothing says nothing of it');
    await page.close();
  });

  it('preemption in a plan that may not preempt says it was not done; one that cannot help says so', async () => {
    const page = await open('light');
    const x = preemptingExplanation();
    const preemption = x.preemption;
    assert.ok(preemption);
    await send(page, { type: 'explanation', explanation: { ...x, preemption: { ...preemption, reportOnly: true } } });
    await tab(page, 'preemption');
    assert.equal(
      await page.locator('.preemption .callout').innerText(),
      'Not done (plans do not preempt unless the profile allows it: PodSetPlanner args allowPreemption): evicting data/batch-3, data/batch-4 from node-0002 would make room.',
    );
    await send(page, {
      type: 'explanation',
      explanation: { ...x, preemption: { victims: [], reportOnly: false, candidates: [], failures: preemption.failures } },
      nav: nav(2),
    });
    await tab(page, 'preemption');
    assert.equal(await page.locator('vscode-tab-header[data-tab="preemption"]').innerText(), 'Preemption');
    assert.equal(await page.locator('.preemption .callout').innerText(), 'No eviction of lower-priority pods makes room on any node.');
    assert.equal(await page.locator('.preemption section').count(), 1);
    await send(page, { type: 'explanation', explanation: explanation(12), nav: nav(3) });
    assert.equal(
      await page.locator('vscode-tab-header[data-tab="preemption"]').count(),
      0,
      'no preemption tab when the cycle did not try it',
    );
    await violationsAndPosts(page);
    await page.close();
  });

  it('back and forward: the toolbar and Alt+arrows ask the host; an entry shown again comes back as it was left', async () => {
    const page = await open('light');
    await send(page, { type: 'plan', plan, nav: nav(1) });
    assert.equal(await page.getByRole('button', { name: '← Back' }).isDisabled(), true);
    await tab(page, 'funnel');
    await page.locator('.step').nth(3).click();
    await send(page, { type: 'explanation', explanation: explanation(40), nav: nav(2, true) });
    await page.getByRole('button', { name: '← Back' }).click();
    await page.keyboard.press('Alt+ArrowLeft');
    // The host answers with entry 1 again: the funnel tab, its step open.
    await send(page, { type: 'plan', plan, nav: nav(1, false, true) });
    assert.equal(await page.locator('vscode-tabs').evaluate((t: HTMLElement & { selectedIndex: number }) => t.selectedIndex), 3);
    assert.equal(await page.locator('.step').nth(3).getAttribute('aria-pressed'), 'true');
    await page.getByRole('button', { name: 'Forward →' }).click();
    assert.deepEqual((await violationsAndPosts(page)).slice(1), [{ type: 'back' }, { type: 'back' }, { type: 'forward' }]);
    await page.close();
  });

  it('a plan shown before its bound says the solver is proving it, and fills it in when it comes (kept in the state); a bound of another plan changes nothing', async () => {
    const page = await open('light');
    const bound = {
      solver: 'HiGHS 1.15.1',
      optimal: false,
      gap: 0.01,
      text: 'places 297; no plan places more than 300 (within 1.0% of the best possible)',
    };
    await send(page, { type: 'plan', plan: { ...plan, boundPending: 'bound-7' }, nav: nav(1) });
    const facts = page.locator('header .facts');
    assert.match(await facts.innerText(), / · bound: the solver is proving it…$/);
    assert.equal(await page.locator('.facts [role=status]').innerText(), 'bound: the solver is proving it…');
    await page.evaluate((m) => window.postMessage(m, '*'), { type: 'bound', token: 'bound-6', bound: { ...bound, text: 'not this one' } });
    await page.evaluate((m) => window.postMessage(m, '*'), { type: 'bound', token: 'bound-7', bound });
    await page.locator('header .facts', { hasText: `bound (${bound.solver}): ${bound.text}` }).waitFor();
    assert.doesNotMatch(await facts.innerText(), /proving|not this one/);
    const state = (await recorded(page)).state as { message: { plan: { bound?: unknown; boundPending?: unknown } } };
    assert.deepEqual(state.message.plan.bound, bound);
    assert.equal(state.message.plan.boundPending, undefined);
    // None proven: the placeholder goes, with its separator.
    await send(page, { type: 'plan', plan: { ...plan, boundPending: 'bound-8' }, nav: nav(2) });
    await page.evaluate((m) => window.postMessage(m, '*'), { type: 'bound', token: 'bound-8' });
    await page.locator('.facts [role=status]').waitFor({ state: 'detached' });
    assert.doesNotMatch(await facts.innerText(), /bound| · $/);
    await page.close();
  });

  it('shows the saved view at once when VS Code reloads the panel, with what the user did in it', async () => {
    const page = await open('light', { message: { type: 'plan', plan, nav: nav(4) }, ui: { '4': { tab: 'unplaced' } } });
    await page.waitForSelector('#root[data-view="plan"]');
    assert.equal(await page.locator('h1').innerText(), 'Plan for nightly-batch');
    assert.equal(await page.locator('vscode-tabs').evaluate((t: HTMLElement & { selectedIndex: number }) => t.selectedIndex), 2);
    await page.close();
  });

  it('renders 5,000 nodes and 10,000 pods: every node drawn on the map, the matrix of 5,000 rows virtualized', async () => {
    const page = await open('dark');
    const big = bigPlan(5000, 10000);
    await send(page, { type: 'plan', plan: big, nav: nav(1) });
    assert.equal(await page.locator('.map-view .count[role=status]').innerText(), '5,000 of 5,000 nodes');
    assert.ok((await painted(page)) > 5000 * 50);
    await page.screenshot({ path: `${RESULTS}/webview-plan-map-5000-dark.png` });
    await page.locator('.map-view label.field', { hasText: 'Colour' }).locator('vscode-single-select').click();
    await page.getByRole('option', { name: 'owner of planned pods' }).click();
    await page.locator('.node-map canvas').click({ position: { x: 20, y: 20 } });
    await page.screenshot({ path: `${RESULTS}/webview-plan-owners-5000-dark.png` });
    await tab(page, 'pods');
    const podRows = await page.locator('.pods-table .matrix-body .matrix-row').count();
    assert.ok(podRows > 10 && podRows < 60, `${podRows} pod rows in the DOM`);
    assert.equal(await page.locator('.pods-view .count').innerText(), '9,800 of 9,800 pods');
    await tab(page, 'unplaced');
    assert.equal(await page.locator('.unplaced').count(), 4);
    await send(page, { type: 'explanation', explanation: explanation(5000), nav: nav(2, true) });
    await tab(page, 'matrix');
    const rows = await page.locator('.matrix-body .matrix-row').count();
    assert.ok(rows > 10 && rows < 60, `${rows} rows in the DOM`);
    await page.locator('.matrix-body').evaluate((e) => (e.scrollTop = 24 * 4000));
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.matrix-body .matrix-row')].some((r) => r.getAttribute('aria-rowindex') === '4002'),
    );
    await violationsAndPosts(page);
    await page.close();
  });

  it('the map’s search at 5,000 nodes keeps every key typed 30 ms apart and filters once the keys pause', async () => {
    const page = await open('dark');
    const big = bigPlan(5000, 10000);
    await send(page, { type: 'plan', plan: big, nav: nav(1) });
    const search = page.locator('.map-view vscode-textfield.search');
    await page.locator('.map-view vscode-textfield.search input').click();
    // Count the filter's runs: each redraws the count.
    await page.locator('.map-view .count[role=status]').evaluate((el) => {
      (window as unknown as { __counts: number }).__counts = 0;
      new MutationObserver(() => (window as unknown as { __counts: number }).__counts++).observe(el, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await page.keyboard.type('node-12', { delay: 30 });
    const expected = big.nodes.filter((n) => n.node.includes('node-12')).length;
    await page.locator('.map-view .count[role=status]', { hasText: `${expected.toLocaleString('en')} of 5,000 nodes` }).waitFor();
    assert.equal(await search.evaluate((e: HTMLElement & { value: string }) => e.value), 'node-12');
    assert.ok(
      (await page.evaluate(() => (window as unknown as { __counts: number }).__counts)) <= 2,
      'the filter ran once per pause, not once per key',
    );
    await page.close();
  });

  it('the map fills the panel’s width, and groups nodes by zone (or pool, or a label) with a summary per group (screenshot test-results/webview-plan-map-zones-dark.png)', async () => {
    const page = await open('dark', undefined, 1100);
    const big = bigPlan(5000, 10000);
    await send(page, { type: 'plan', plan: big, nav: nav(1) });
    const width = async (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((e) => e.getBoundingClientRect().width);
    assert.ok((await width('.node-map canvas')) >= 0.95 * (await width('.map-view')), 'the map is as wide as the view');
    await page.locator('.map-view label.field', { hasText: 'Group' }).locator('vscode-single-select').click();
    await page.getByRole('option', { name: 'by zone' }).click();
    const zones = [...new Set(big.nodes.map((n) => n.zone ?? '(no zone)'))].sort();
    const summaries = await page.locator('.map-group h3').allInnerTexts();
    assert.deepEqual(
      summaries.map((t) => t.split(':')[0]),
      zones,
    );
    const first = big.nodes.filter((n) => (n.zone ?? '(no zone)') === zones[0]);
    assert.match(
      summaries[0] ?? '',
      new RegExp(`^${zones[0]}: ${first.length.toLocaleString('en')} nodes, [\\d,]+ pods planned, cpu \\d+% and memory \\d+% in use$`),
    );
    assert.equal(await page.locator('.map-group canvas').count(), zones.length);
    await page.screenshot({ path: `${RESULTS}/webview-plan-map-zones-dark.png` });
    // A node chosen on a group's map shows its detail.
    await page
      .locator('.map-group canvas')
      .first()
      .click({ position: { x: 5, y: 5 } });
    assert.match(
      await page.locator('.node-detail h3').innerText(),
      new RegExp(`^${first.sort((a, b) => a.node.localeCompare(b.node))[0]?.node ?? ''}`),
    );
    await violationsAndPosts(page);
    await page.close();
  });

  it('lists the history and asks to compare two picked plans, older first', async () => {
    const page = await open('dark');
    const entry = (id: number, placed: number) => ({
      id,
      podSet: 'nightly-batch',
      namespace: 'analytics',
      trigger: 'nightly-batch',
      planner: 'default',
      profile: 'p',
      status: 'draft' as const,
      createdAt: Date.UTC(2025, 2, 14, 9, id),
      placed,
      unplaced: 6 - placed,
    });
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
    assert.deepEqual((await recorded(page)).posted.slice(1), [
      { type: 'comparePlans', from: 3, to: 9 },
      { type: 'moreHistory', before: 3 },
      { type: 'openPlan', id: 7 },
    ]);
    await page.close();
  });

  it('shows a comparison with the reason for each move', async () => {
    const page = await open('light');
    const entry = (id: number) => ({
      id,
      podSet: 'nightly-batch',
      namespace: 'analytics',
      planner: 'default',
      profile: 'p',
      status: 'draft' as const,
      createdAt: Date.UTC(2025, 2, 14, 9, id),
      placed: 4,
      unplaced: 2,
    });
    const diff: HostToWebview = {
      type: 'diff',
      diff: {
        from: entry(3),
        to: entry(9),
        moved: [
          {
            pod: 'etl-0',
            from: 'worker-a',
            to: 'worker-b',
            reason: 'worker-a now rejects it at Filter: NodeResourcesFit: Insufficient cpu',
          },
        ],
        becamePlaced: [],
        becameUnplaced: [{ pod: 'etl-2', was: 'worker-b', message: '0/5 nodes are available: 5 Insufficient memory.' }],
        added: [],
        removed: [],
        unchanged: 3,
        stillUnplaced: 1,
        newlyEvicted: [],
        noLongerEvicted: [],
        stillEvicted: 0,
      },
    };
    await send(page, diff);
    await page.screenshot({ path: `${RESULTS}/webview-diff-light.png`, fullPage: true });
    assert.deepEqual(await page.locator('h2').allInnerTexts(), ['Moved (1)', 'No longer placed (1)']);
    assert.deepEqual(await page.locator('tbody').first().locator('td').allInnerTexts(), [
      'etl-0',
      'worker-a',
      'worker-b',
      'worker-a now rejects it at Filter: NodeResourcesFit: Insufficient cpu',
    ]);
    await page.close();
  });

  it('shows which running pods only one of two plans evicts, and how many both do', async () => {
    const page = await open('dark');
    const entry = (id: number, evicted: number) => ({
      id,
      podSet: 'nightly-batch',
      namespace: 'analytics',
      planner: 'default',
      profile: 'p',
      status: 'draft' as const,
      createdAt: Date.UTC(2025, 2, 14, 9, id),
      placed: 6,
      unplaced: 0,
      evicted,
    });
    await send(page, { type: 'history', entries: [entry(9, 3), entry(3, 1)] });
    assert.deepEqual(await page.locator('tbody tr').first().locator('td').last().innerText(), '3');
    await send(page, {
      type: 'diff',
      diff: {
        from: entry(3, 1),
        to: entry(9, 3),
        moved: [],
        becamePlaced: [],
        becameUnplaced: [],
        added: [],
        removed: [],
        unchanged: 6,
        stillUnplaced: 0,
        newlyEvicted: [
          { pod: 'reports/render-1', node: 'worker-b', by: 'etl-4' },
          { pod: 'reports/render-2', node: 'worker-b', by: 'etl-4' },
        ],
        noLongerEvicted: [],
        stillEvicted: 1,
      },
    });
    await page.screenshot({ path: `${RESULTS}/webview-diff-evictions-dark.png`, fullPage: true });
    assert.deepEqual(await page.locator('h2').allInnerTexts(), ['Evicted only by #9 (2)']);
    assert.match(await page.locator('header .facts').innerText(), /1 evicted by both/);
    assert.deepEqual(await page.locator('tbody tr').first().locator('td').allInnerTexts(), ['reports/render-1', 'worker-b', 'etl-4']);
    await page.locator('tbody tr').first().getByRole('link', { name: 'reports/render-1' }).click();
    assert.deepEqual((await recorded(page)).posted.at(-1), { type: 'reveal', kind: 'Pod', name: 'render-1', namespace: 'reports' });
    await page.close();
  });
});
