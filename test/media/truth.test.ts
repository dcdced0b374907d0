// Issue 22's "views that say true things", end to end from the server's own view models on the
// bundled example (examples/cluster) to the panel in headless Chromium: the funnel in the
// pipeline's order with counts that chain, the closest node of ml/trainer (the taint on gpu-c2, as
// the example's README says), and a reason for every move between two stored plans.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Plan } from '../../src/engine/planner/plan';
import { explainPodRequest, previewPlan } from '../../src/server/service';
import { planPodSet } from '../../src/server/service/planning';
import { openHistory } from '../../src/server/store-history';
import type { History } from '../../src/server/history';
import { workspaceOf } from '../server/service/fixtures';
import { launch, openPanel, send } from './harness';

const RESULTS = 'test-results';
const EXAMPLE = ['nodes.yaml', 'podset.yaml', 'priority.yaml', 'profile.yaml', 'workloads.yaml'];
const exampleFiles = (): Record<string, string> =>
  Object.fromEntries(EXAMPLE.map((f) => [f, readFileSync(`examples/cluster/${f}`, 'utf8')]));

function value<T>(r: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!r.ok) assert.fail(r.error);
  return r.value;
}

describe('webview in headless Chromium: the example’s views tell the truth', function () {
  this.timeout(60_000);
  let browser: Browser;
  let history: History;
  const errors: string[] = [];
  const open = (): Promise<Page> => openPanel(browser, 'light', { errors });

  before(async () => {
    browser = await launch();
    mkdirSync(RESULTS, { recursive: true });
    history = await openHistory(join(mkdtempSync(join(tmpdir(), 'podplan-truth-')), 'history.db'), ['file:///w'], () => undefined);
  });
  after(async () => {
    history?.close();
    await browser?.close();
  });
  afterEach(() => assert.deepEqual(errors.splice(0), [], 'errors in the page'));

  it('funnel of nightly-batch: the pipeline’s order (every filter before Score), each step receiving what the one before kept, Score rejecting none', async () => {
    const plan = value(
      await previewPlan({ trigger: { namespace: 'analytics', name: 'nightly-batch' } }, workspaceOf(exampleFiles()).analysis(), history),
    );
    const page = await open();
    await send(page, { type: 'plan', plan });
    await page.locator('vscode-tab-header[data-tab="funnel"]').click();
    const names = await page.locator('.step-name').allInnerTexts();
    assert.deepEqual(names.slice(0, 2), ['Sort', 'PreFilter']);
    const score = names.indexOf('Score');
    assert.ok(score > 2 && names.slice(2, score).every((n) => n.startsWith('Filter · ')), names.join(', '));
    assert.ok(
      names.slice(score + 1).every((n) => !n.startsWith('Filter')),
      names.join(', '),
    );
    assert.equal(names[score + 1], 'Select host');
    const counts = (await page.locator('.step-count').allInnerTexts()).map(
      (t) => t.split(' → ').map((n) => Number(n.replace(/,/g, ''))) as [number, number],
    );
    counts
      .slice(1)
      .forEach(([entered], i) =>
        assert.equal(entered, counts[i]?.[1], `${names[i + 1]} receives what ${names[i]} kept: ${JSON.stringify(counts)}`),
      );
    assert.equal(counts[score]?.[0], counts[score]?.[1], 'Score keeps every node it ranks');
    await page.locator('.step').nth(score).click();
    assert.match(await page.locator('.step-detail').innerText(), /Score ranks every node that passed the filters; it rejects none\./);
    await page
      .locator('.step')
      .nth(score + 1)
      .click();
    assert.match(await page.locator('.step-detail').innerText(), /chosen \(the best score\), \d+ scored lower: ranked, not rejected/);
    await page.screenshot({ path: `${RESULTS}/webview-truth-funnel.png`, fullPage: true });
    await page.close();
  });

  it('closest node of ml/trainer: gpu-c2, whose untolerated taint is its only obstacle, named above the matrix', async () => {
    const x = value(
      await explainPodRequest({ pod: { namespace: 'ml', name: 'trainer' } }, workspaceOf(exampleFiles()).analysis(), history),
    );
    const page = await open();
    await send(page, { type: 'explanation', explanation: x });
    await page.locator('vscode-tab-header[data-tab="matrix"]').click();
    const callout = await page.locator('.callout').innerText();
    assert.match(callout, /^Closest node: gpu-c2 — it fails only TaintToleration: node\(s\) had untolerated taint/);
    assert.match(await page.locator('.verdict-text').innerText(), /^No node fits\. Closest: gpu-c2, which fails only TaintToleration/);
    await page.getByRole('button', { name: 'Show its row' }).click();
    assert.equal(await page.locator('.matrix-row.active .name').innerText(), 'gpu-c2');
    await page.screenshot({ path: `${RESULTS}/webview-truth-closest.png`, fullPage: true });
    await page.close();
  });

  it('compare: every moved pod has its reason, from the newer plan’s cycle or, when its planner kept none, from the older one', async () => {
    const files = exampleFiles();
    const request = { namespace: 'analytics', podSet: 'nightly-batch', trigger: 'nightly-batch' };
    const firstAnalysis = workspaceOf(files).analysis();
    const first = value(planPodSet(firstAnalysis, request));
    const firstId = value(history.savePreview(first, 'sha256:p', new Set(), { cluster: firstAnalysis.model.cluster }));
    files['podset.yaml'] = (files['podset.yaml'] ?? '').replace(
      'requests: { cpu: 1500m, memory: 3Gi }',
      'requests: { cpu: 2500m, memory: 3Gi }',
    );
    const secondAnalysis = workspaceOf(files).analysis();
    const second = value(planPodSet(secondAnalysis, request));
    const secondId = value(history.savePreview(second, 'sha256:p', new Set(), { cluster: secondAnalysis.model.cluster }));
    // A planner that places the set as a whole (the solver's, replayed) keeps no cycle per placed pod.
    const whole: Plan = { ...second, planner: 'optimize', assignments: second.assignments.map(({ pod, node }) => ({ pod, node })) };
    const wholeId = value(history.savePreview(whole, 'sha256:q', new Set(), { cluster: secondAnalysis.model.cluster }));
    const page = await open();
    for (const [to, pattern] of [
      [secondId, /^(\S+ now rejects it at Filter: NodeResourcesFit: Insufficient cpu|\S+ scores \d+, \S+ \d+)$/],
      [
        wholeId,
        /^the optimize planner placed the set as a whole and keeps no cycle per pod; .*in the newer plan \S+ holds \d+ pods? of the set, \S+ \d+ pods?$/,
      ],
    ] as const) {
      const diff = value(history.compare(firstId, to));
      assert.ok(diff.moved.length > 0);
      for (const m of diff.moved) assert.match(m.reason, pattern, JSON.stringify(m));
      await send(page, { type: 'diff', diff, nav: { entry: to, back: false, forward: false } });
      const rows = await page
        .locator('tbody')
        .first()
        .locator('tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      assert.deepEqual(
        rows.map((r) => r[3]),
        diff.moved.map((m) => m.reason),
      );
      assert.ok(rows.every((r) => !/kept no diagnosis/.test(r[3] ?? '')));
      await page.screenshot({ path: `${RESULTS}/webview-truth-compare-${to === wholeId ? 'whole' : 'cycle'}.png`, fullPage: true });
    }
    await page.close();
  });
});
