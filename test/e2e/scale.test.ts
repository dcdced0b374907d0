// The plan panel at cluster scale inside the workbench: a workspace of 5,000 nodes, 9,700 running
// pods and a pod set of 300 pods (a few of which fit nowhere), previewed from the command palette in
// the installed extension on both code-server lines. The node map draws every node and its search
// keeps every key typed 30 ms apart, the pod set's stage funnel opens a step's rejections, and
// Explain of an unplaced pod shows its node × plugin matrix over all 5,000 nodes with the closest
// node named. How long Podplan took to show its status and the preview is printed, not asserted.
import assert from 'node:assert/strict';
import { NODES, PODS, TOO_BIG, writeScaleWorkspace } from './scale-workspace';
import { LINES, runCommandOn, useWorkbench } from './workbench';

const STEP_MS = 120_000;
const ONLY = process.env['PODPLAN_E2E_LINE'];

for (const line of LINES.filter((l) => !ONLY || l.tag === ONLY)) {
  describe(`the plan panel at ${NODES.toLocaleString('en')} nodes in ${line.name}`, function () {
    this.timeout(30 * 60_000);

    const workbench = useWorkbench(line, {
      name: 'scale',
      stepMs: STEP_MS,
      prepare: writeScaleWorkspace,
    });
    const panel = () => workbench.panel();

    it('previews the pod set and draws every node on the node map', async () => {
      // The status bar counts what the server read, thousands with their separator.
      assert.match(
        await workbench.page.locator('.statusbar-item', { hasText: /pods? to place/ }).innerText(),
        /\b5,000 nodes, 300 pods to place\b/,
      );
      const asked = performance.now();
      await runCommandOn(workbench.page, 'Podplan: Preview Plan', 'big-set');
      const summary = panel().locator('p.summary');
      await summary.waitFor();
      // A figure for the report, not an assertion.
      console.log(`      preview shown ${((performance.now() - asked) / 1000).toFixed(1)} s after it was asked for`);
      // Shown before its bound, which fills in where the facts say the solver is proving it.
      await panel()
        .locator('header p.facts', { hasText: /bound \(HiGHS [\d.]+\): places 297; no plan places more than 297/ })
        .waitFor();
      console.log(`      its bound ${((performance.now() - asked) / 1000).toFixed(1)} s after`);
      assert.match(
        await summary.innerText(),
        new RegExp(`^${PODS - TOO_BIG} pods placed on \\d+ nodes? of ${NODES.toLocaleString('en')}, ${TOO_BIG} not placed`),
      );
      await panel().locator('.node-map canvas').waitFor();
      assert.match(
        await panel().locator('vscode-tab-header[data-tab="map"]').innerText(),
        new RegExp(`Node map \\(${NODES.toLocaleString('en')}\\)`),
      );
      await workbench.shot('node-map');
    });

    it('the map’s search keeps every key typed at 30 ms per key, and filters by what was typed', async () => {
      const search = panel().locator('.map-view vscode-textfield.search');
      const count = panel().locator('.map-view .count[role=status]');
      // Nine queries, as in issue 22 (where 3 of 9 lost keys at 30 ms per key: "cpu>40" became "40",
      // "node-12" became "de-12"). zone-1 holds every third node; node-12 names node-1200 to node-1299;
      // cpu>0 is every node (each runs pods already); the plan puts one 1-cpu pod on 297 nodes of
      // 4 cpu, which makes them the ones above 20% and none above 40%; batch-1 names the pods
      // batch-10 to batch-19 and batch-100 to batch-199 placed (batch-1 fits nowhere).
      for (const [query, shown] of [
        ['zone:zone-1', '1,667 of 5,000 nodes'],
        ['node-12', '100 of 5,000 nodes'],
        ['cpu>0', '5,000 of 5,000 nodes'],
        ['cpu>40', '0 of 5,000 nodes'],
        ['cpu>20', '297 of 5,000 nodes'],
        ['node-00', '100 of 5,000 nodes'],
        ['zone:zone-2', '1,666 of 5,000 nodes'],
        ['node-4999', '1 of 5,000 nodes'],
        ['batch-1', '110 of 5,000 nodes'],
      ] as const) {
        await search.click();
        await search.evaluate((e: HTMLElement & { value: string }) => {
          e.value = '';
          e.dispatchEvent(new Event('input'));
        });
        await workbench.page.keyboard.type(query, { delay: 30 });
        await panel()
          .locator('.map-view .count[role=status]', { hasText: new RegExp(`^${shown}$`) })
          .waitFor();
        assert.equal(await search.evaluate((e: HTMLElement & { value: string }) => e.value), query);
        assert.equal(await count.innerText(), shown);
      }
      await workbench.shot('search-typed');
    });

    it('groups the 5,000 nodes by zone, a map and a summary per zone, across the panel', async () => {
      await panel()
        .locator('.map-view vscode-textfield.search')
        .evaluate((e: HTMLElement & { value: string }) => {
          e.value = '';
          e.dispatchEvent(new Event('input'));
        });
      await panel()
        .locator('.map-view .count[role=status]', { hasText: /^5,000 of 5,000 nodes$/ })
        .waitFor();
      await panel()
        .locator('.map-view vscode-single-select[aria-label="Group"]')
        .evaluate((e: HTMLElement & { value: string }) => {
          e.value = 'zone';
          e.dispatchEvent(new Event('change'));
        });
      const summaries = panel().locator('.map-group .group-summary');
      await summaries.first().waitFor();
      const groups = (await summaries.allInnerTexts()).map(
        (t) => /^(zone-\d): ([\d,]+) nodes, (\d+) pods? planned, cpu \d+% and memory \d+% in use$/.exec(t) ?? [t],
      );
      assert.deepEqual(
        groups.map(([, zone, nodes]) => `${zone}: ${nodes}`),
        ['zone-0: 1,667', 'zone-1: 1,667', 'zone-2: 1,666'],
      );
      assert.equal(
        groups.reduce((sum, [, , , planned]) => sum + Number(planned), 0),
        PODS - TOO_BIG,
      );
      // The maps use the panel's width, not half of it.
      const [map, view] = await Promise.all([
        panel().locator('.map-group canvas').first().boundingBox(),
        panel().locator('.map-view').boundingBox(),
      ]);
      assert.ok(map && view && map.width > view.width * 0.9, JSON.stringify({ map, view }));
      await workbench.shot('grouped-by-zone');
    });

    it("opens a step of the pod set's stage funnel to the nodes it rejected", async () => {
      await panel().locator('vscode-tab-header[data-tab="funnel"]').click();
      const fit = panel().locator('button.step', { hasText: 'NodeResourcesFit' });
      await fit.first().click();
      await panel().getByText('Insufficient cpu').first().waitFor();
      await workbench.shot('funnel');
    });

    it('explains an unplaced pod with its node × plugin matrix over every node and the closest node', async () => {
      await panel().locator('vscode-tab-header[data-tab="unplaced"]').click();
      await panel().locator('.chips .pod-chip button', { hasText: 'Explain' }).first().click();
      await panel().locator('vscode-tab-header[data-tab="matrix"]').click();
      const header = panel().locator('vscode-tab-header[data-tab="matrix"]');
      assert.match(await header.innerText(), new RegExp(`Nodes × plugins \\(${NODES.toLocaleString('en')}\\)`));
      await panel().locator('.matrix-body .matrix-row').first().waitFor();
      // The closest node with its shortfall (issue 22: "a 64-cpu pod's closest node … with no shortfall given").
      assert.match(await panel().locator('#root').innerText(), /Closest node: node-\d{4} — .*Insufficient cpu \(short by [\d.]+m? cpu\)/);
      await workbench.shot('matrix');
    });
  });
}
