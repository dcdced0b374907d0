// The whole extension in a real VS Code workbench, as users install it: the packaged .vsix is
// installed with `code-server --install-extension` into a fresh extensions folder, on both
// code-server lines (4.100.3 on Node 20, whose extension host has no node:sqlite; the newest on
// Node 24). code-server runs it on a copy of examples/cluster plus a file with a deliberate
// problem and two files other YAML tools own, and headless Chromium drives the UI the way a user
// would. The first run on a machine installs code-server (see workbench.ts).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { cp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { goTo, LINES, pickItem, ROOT, runCommand, runCommandOn, runNode, useWorkbench } from './workbench';

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

// Files whose names once matched our schemas by file name: neither is ours, neither gets an error from us.
const DEPLOY_PLAN = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
        - name: web
          image: registry.example/shop/web:2.0
          resources:
            requests: { cpu: 250m, memory: 256Mi }
`;

const KEDA_TRIGGER = `apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: web
  namespace: shop
spec:
  scaleTargetRef:
    name: web
  triggers:
    - type: cron
      metadata:
        timezone: Europe/Berlin
        start: 0 8 * * *
        end: 0 18 * * *
        desiredReplicas: "4"
`;

const STEP_MS = 60_000;

for (const line of LINES) {
  describe(`the packaged extension in ${line.name} + Chromium`, function () {
    // The first run on a fresh machine installs code-server; later runs start in seconds.
    this.timeout(30 * 60_000);

    let workspaceDir = '';
    const workbench = useWorkbench(line, {
      stepMs: STEP_MS,
      async prepare(workspace) {
        workspaceDir = workspace;
        await cp(path.join(ROOT, 'examples/cluster'), workspace, { recursive: true });
        await writeFile(path.join(workspace, 'bad-plan.yaml'), BAD_PLAN);
        await writeFile(path.join(workspace, 'deploy-plan.yaml'), DEPLOY_PLAN);
        await writeFile(path.join(workspace, 'keda-trigger.yaml'), KEDA_TRIGGER);
      },
    });
    const page = () => workbench.page;
    const panel = () => workbench.panel();
    const shot = (name: string) => workbench.shot(name);
    const notification = (text: string | RegExp) => page().locator('.notifications-toasts .notification-toast', { hasText: text });
    /**
     * Waits for an event, not a while: a file with one known problem (a pod of a pod set whose cpu
     * does not parse), written now, shows in the Problems panel only once the language server has
     * taken in everything before it. Returns the panel's rows then, the file removed again and the
     * panel empty before it returns.
     */
    const problemsOnceCaughtUp = async (): Promise<string[]> => {
      const probe = path.join(workspaceDir, 'zz-probe.yaml');
      await writeFile(
        probe,
        'apiVersion: v1\nkind: Pod\nmetadata: { name: probe, labels: { planner.ciena.io/pod-set: probe } }\nspec:\n  containers: [{ name: main, resources: { requests: { cpu: lots } } }]\n',
      );
      await page().locator('.markers-panel .monaco-list-row', { hasText: 'zz-probe.yaml' }).first().waitFor();
      const rows = await page().locator('.markers-panel .monaco-list-row').allInnerTexts();
      await rm(probe);
      await page().locator('.markers-panel', { hasText: 'No problems have been detected in the workspace.' }).waitFor();
      return rows;
    };
    const treeRow = (view: string, text: string | RegExp) =>
      page().locator(`.pane:has(.pane-header[aria-label^="${view}"]) .monaco-list-row`, { hasText: text });

    it("ships HiGHS (WebAssembly) in the package, loadable by the extension host's Node from the installed extension", () => {
      // Resolved as the server bundle's import('highs') is: from a CommonJS file beside it.
      const probe = path.join(workbench.installed.extension, 'dist/highs-probe.cjs');
      writeFileSync(probe, "import('highs').then((m) => m.default()).then((h) => process.stdout.write(h.version.string));\n");
      const version = runNode(line, `require(${JSON.stringify(probe)})`);
      assert.match(version, /^\d+\.\d+\.\d+/);
    });

    it("shows the language server's diagnostic for a plan that breaks a taint in the Problems panel", async () => {
      await page().getByRole('treeitem', { name: 'bad-plan.yaml' }).click();
      await page().locator('.tab.active', { hasText: 'bad-plan.yaml' }).waitFor();
      await runCommand(page(), 'Problems: Focus on Problems View');
      const problem = page().locator('.markers-panel .monaco-list-row', { hasText: 'pod tainted-0 cannot run on node gpu-c2' });
      await problem.waitFor();
      const text = await problem.innerText();
      assert.match(text, /node\(s\) had untolerated taint\(s\) \(TaintToleration\)/);
      assert.match(text, /podplan\s*\(?plan\/node-infeasible/);
      await shot('problems');
    });

    it("moves the pod with the server's quick fix, after which the Problems panel is empty", async () => {
      await page().locator('.monaco-editor .view-lines').first().click();
      await goTo(page(), 11, 13);
      await page().keyboard.press('Control+.');
      const fix = page().locator('.action-widget .monaco-list-row', { hasText: /Move tainted-0 to \S+, the best node where it fits/ });
      await fix.waitFor();
      const node = /Move tainted-0 to (\S+),/.exec(await fix.innerText())?.[1];
      // The preferred fix comes focused; the widget's pointer block swallows clicks, so apply by key.
      assert.match((await fix.getAttribute('class')) ?? '', /\bfocused\b/);
      await page().keyboard.press('Enter');
      await page().locator('.markers-panel', { hasText: 'No problems have been detected in the workspace.' }).waitFor();
      // Monaco renders spaces as no-break spaces.
      const shown = (await page().locator('.monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
      assert.match(shown, new RegExp(`node: ${node}\\b`));
      await page().keyboard.press('Control+S');
    });

    it('completes an emptied node: with the nodes ranked for the entry’s pod, the best first (never left at "Loading…")', async () => {
      const editor = page().locator('.monaco-editor .view-lines').first();
      await goTo(page(), 11, 1);
      const written =
        (await editor.innerText())
          .replace(/\u00a0/g, ' ')
          .split('\n')
          .find((l) => /^\s*node: /.test(l)) ?? '';
      // Empty the value, then type the space after the colon (a trigger character), as a user would.
      // (Shift+Home selects back to the indentation.)
      await page().keyboard.press('End');
      await page().keyboard.press('Shift+Home');
      await page().keyboard.type('node:');
      await page().keyboard.type(' ');
      const widget = page().locator('.editor-widget.suggest-widget');
      await widget.filter({ hasText: /fits · score \d+ · best/ }).waitFor();
      assert.doesNotMatch(await widget.innerText(), /Loading/);
      assert.match(await widget.innerText(), /gpu-c2/);
      await shot('completion-node');
      await page().keyboard.press('Escape');
      // Back to what the quick fix wrote, saved: the tests after this one expect no problem.
      await page().keyboard.press('End');
      await page().keyboard.press('Shift+Home');
      await page().keyboard.type(written.trim());
      await page().keyboard.press('Control+S');
      await page().locator('.markers-panel', { hasText: 'No problems have been detected in the workspace.' }).waitFor();
    });

    it('gives no error to a Deployment in deploy-plan.yaml beside a ScheduleTrigger, nor to keda-trigger.yaml', async () => {
      await page().getByRole('treeitem', { name: 'podset.yaml' }).click();
      await page().locator('.tab.active', { hasText: 'podset.yaml' }).waitFor();
      await runCommand(page(), 'View: Split Editor Right');
      await page().getByRole('treeitem', { name: 'deploy-plan.yaml' }).dblclick();
      await page().locator('.tab.active', { hasText: 'deploy-plan.yaml' }).waitFor();
      await runCommand(page(), 'Problems: Focus on Problems View');
      await page().locator('.markers-panel', { hasText: 'No problems have been detected in the workspace.' }).waitFor();
      await shot('trigger-beside-deploy-plan');
      // Once the server has caught up, only the probe's problem: none for deploy-plan.yaml.
      const beside = await problemsOnceCaughtUp();
      assert.ok(beside.some((r) => r.includes('zz-probe.yaml')) && !beside.some((r) => r.includes('deploy-plan.yaml')), beside.join(' | '));
      // The explorer's hover on deploy-plan.yaml (its path) can cover the rows below it: move away first.
      await page().mouse.move(0, 0);
      await page().locator('.context-view .hover-contents').waitFor({ state: 'hidden' });
      await page().getByRole('treeitem', { name: 'keda-trigger.yaml' }).dblclick();
      await page().locator('.tab.active', { hasText: 'keda-trigger.yaml' }).waitFor();
      const keda = await problemsOnceCaughtUp();
      assert.ok(keda.some((r) => r.includes('zz-probe.yaml')) && !keda.some((r) => r.includes('keda-trigger.yaml')), keda.join(' | '));
    });

    it("previews a pod set's plan from the command palette, and the plan webview lists where each pod goes", async () => {
      await runCommandOn(page(), 'Podplan: Preview Plan', 'nightly-batch');
      // The Pods tab lists every placed pod: pod, owner, node, score.
      await panel().locator('vscode-tab-header[data-tab="pods"]').click();
      const assignments = panel().locator('.pods-view .matrix-row:not(.matrix-head)');
      await assignments.first().waitFor();
      const rows = await assignments.evaluateAll((divs) =>
        divs.map((row) => Array.from(row.querySelectorAll('[role=gridcell]'), (cell) => cell.textContent?.trim() ?? '')),
      );
      assert.ok(rows.length > 0);
      for (const [pod, , node] of rows) {
        assert.match(pod ?? '', /^(etl|feature-store)-/);
        assert.match(node ?? '', /^node-[abc]\d$/);
      }
      assert.match(
        await panel().locator('p.summary').innerText(),
        new RegExp(`^${rows.length} pods? placed on \\d+ nodes? of \\d+, 0 not placed`),
      );
      // The MILP solver's bound beside the plan: HiGHS (highs.mjs + its wasm) loaded by the language
      // server from the installed extension's dist/node_modules/highs. The plan is shown first; the
      // bound fills in where the facts said the solver was proving it.
      const facts = panel()
        .locator('header p.facts', { hasText: /\bbound \(HiGHS \d+\.\d+\.\d+\): \S/ })
        .first();
      await facts.waitFor();
      assert.doesNotMatch(await facts.innerText(), /proving/);
      await shot('plan-preview');
      // The plan's line in the Podplan output channel (coloured by syntaxes/podplan-output.tmLanguage.json).
      await runCommand(page(), 'Podplan: Show Output');
      const output = page().locator('.part.panel .view-lines', { hasText: 'preview' });
      await output.waitFor();
      // Monaco renders spaces as no-break spaces and wraps the long line.
      const logged = (await output.innerText()).replace(/\u00a0/g, ' ').replace(/\s*\n\s*/g, ' ');
      assert.match(
        logged,
        /preview pod set analytics\/nightly-batch \(trigger nightly-batch\): planner \S+, profile podset-planner-scheduler, history #\d+: \d+ placed, 0 not placed/,
      );
      await shot('output-channel');
    });

    it('keeps the preview in the plan history, listed by Show Plan History (SQLite in the installed extension)', async () => {
      await runCommand(page(), 'Podplan: Show Plan History');
      const listed = panel().getByText('nightly-batch').first();
      await listed.waitFor();
      assert.equal(await panel().locator('[role=alert]').count(), 0, 'no "history unavailable" alert');
      await page().locator('.statusbar-item', { hasText: 'pods to place' }).hover();
      await page()
        .locator('.monaco-hover, .workbench-hover', { hasText: `Plan history: on (${line.sqlite})` })
        .first()
        .waitFor();
      await shot('history');
    });

    it('runs Preview Plan and Explain from their keybindings (Ctrl+Alt+P, Ctrl+Alt+E), pressed in the workbench', async () => {
      await runCommand(page(), 'View: Close All Editors');
      // The keys go to the workbench (the Explorer has focus), as a user presses them.
      await runCommand(page(), 'View: Show Explorer');
      await page().getByRole('treeitem', { name: 'podset.yaml' }).click();
      await page().locator('.tab.active', { hasText: 'podset.yaml' }).waitFor();
      await page().getByRole('treeitem', { name: 'podset.yaml' }).focus();
      // The pick list each command opens, by its placeholder (the palette's input may still be fading out).
      const asking = (placeholder: string) => page().locator(`.quick-input-widget input[placeholder="${placeholder}"]`);
      await page().keyboard.press('Control+Alt+P');
      await asking('Preview the plan of which pod set?').waitFor();
      await pickItem(page(), 'nightly-batch');
      await panel().locator('#root[data-view="plan"] h1', { hasText: 'Plan for nightly-batch' }).waitFor();
      await page().getByRole('treeitem', { name: 'podset.yaml' }).focus();
      await page().keyboard.press('Control+Alt+E');
      await asking('Explain which pod? (those not placed first)').waitFor();
      await pickItem(page(), 'trainer');
      await panel().locator('#root[data-view="explanation"] h1', { hasText: 'trainer' }).waitFor();
      await shot('keybinding-explain');
      // The palette shows each command with its key.
      await page().keyboard.press('F1');
      const input = page().locator('.quick-input-widget input');
      await input.fill('>Podplan: Preview Plan');
      const row = page().locator('.quick-input-list .monaco-list-row', { hasText: 'Podplan: Preview Plan' }).first();
      await row.waitFor();
      assert.equal((await row.locator('.monaco-keybinding').innerText()).replace(/\s+/g, ''), 'Ctrl+Alt+P');
      await page().keyboard.press('Escape');
    });

    it('shows the Podplan view container: pod sets and triggers, plans with their status, the cluster', async () => {
      await page().locator('.activitybar .action-item a[aria-label^="Podplan"]').click();
      await treeRow('Pod Sets & Triggers', 'nightly-batch').first().waitFor();
      await treeRow('Pod Sets & Triggers', 'nightly-report').first().waitFor();
      await treeRow('Pod Sets & Triggers', /Quiet time/)
        .first()
        .waitFor();
      await treeRow('Pod Sets & Triggers', /Depends on.*nightly-batch: waiting/)
        .first()
        .waitFor();
      await treeRow('Plans', /#\d+ draft/)
        .first()
        .waitFor();
      await treeRow('Cluster', /Source/).waitFor();
      await treeRow('Cluster', /Nodes/).waitFor();
      await shot('views');
    });

    it('shows a tree row’s whole story in its tooltip, where the sidebar cuts the row', async () => {
      // Each row: its view, and what its tooltip must say in full (the row shows a short description).
      const rows: Array<[string, RegExp, RegExp]> = [
        ['Pod Sets & Triggers', /^Quiet time/, /^Quiet time \S+ (after the last pod of the set arrives|: )/],
        [
          'Pod Sets & Triggers',
          /^Depends on/,
          /^ScheduleTrigger nightly-batch, which is not complete \(it is still Planning, and \d+ of its \d+ pods are not placed\)/,
        ],
        ['Pod Sets & Triggers', /^nightly-report/, /^Pod set analytics\/nightly-report \(namespace analytics\)\n/],
        [
          'Plans',
          /^#\d+ draft/,
          /^Plan #\d+ of analytics\/nightly-batch \(draft\), made \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC by \S+, .*: \d+ placed$/,
        ],
      ];
      const cut: string[] = [];
      for (const [view, label, tooltip] of rows) {
        const row = treeRow(view, label).first();
        const shown = await row.locator('.monaco-icon-label-container').evaluate((e) => ({
          text: e.textContent ?? '',
          cut: e.scrollWidth > e.clientWidth,
        }));
        if (shown.cut) cut.push(shown.text);
        await row.hover();
        const hover = page().locator('.monaco-hover, .workbench-hover', { hasText: tooltip }).first();
        await hover.waitFor();
        assert.match(await hover.innerText(), tooltip);
        await shot(`tooltip-${label.source.replace(/\W+/g, '')}`);
        // Off the row, so that the next hover is the next row's.
        await page().locator('.statusbar').hover();
        await hover.waitFor({ state: 'hidden' });
      }
      // The plan row's time is cut at the side bar's width: its tooltip gave it in full above.
      assert.ok(
        cut.some((t) => /^#\d+ draft/.test(t)),
        `the plan row is cut at this width: ${cut.join(' | ') || 'none cut'}`,
      );
    });

    it('refuses Schedule Now while a dependency is not complete, and says why', async () => {
      await runCommandOn(page(), 'Podplan: Schedule Now', 'nightly-report');
      await notification(
        /nightly-report cannot be scheduled yet: it depends on ScheduleTrigger nightly-batch, which is not complete/,
      ).waitFor();
      await shot('schedule-refused');
      await page().keyboard.press('Escape');
    });

    it('schedules (the inline action in the Pod sets tree) after a confirmation naming the files and fields, and records the plan as applied', async () => {
      const row = treeRow('Pod Sets & Triggers', /^nightly-batch/).first();
      await row.hover();
      await row.locator('.action-label[aria-label^="Schedule Now"]').click();
      const dialog = page().locator('.monaco-dialog-box');
      await dialog.waitFor();
      const asked = await dialog.innerText();
      assert.match(asked, /Schedule nightly-batch now\? 6 pods placed; this writes podset\.yaml\./);
      assert.match(asked, /podset\.yaml: changes ScheduleTrigger analytics\/nightly-batch: spec\.state: Planning → Schedule/);
      assert.match(asked, /podset\.yaml: adds SchedulePlan analytics\/nightly-batch: spec\.plan: 6 pods to nodes/);
      await shot('schedule-confirm');
      await dialog.getByRole('button', { name: 'Schedule' }).click();
      await notification(
        /nightly-batch scheduled: 6 pods placed, written to podset\.yaml\. Plan #\d+ is recorded as applied in the history\./,
      ).waitFor();
      await treeRow('Plans', /#\d+ applied/)
        .first()
        .waitFor();
      await treeRow('Pod Sets & Triggers', /Depends on.*nightly-batch: complete/)
        .first()
        .waitFor();
      await shot('schedule-applied');
    });

    it('opens a stored plan from the Plans tree', async () => {
      const applied = treeRow('Plans', /#\d+ applied/).first();
      const id = /#(\d+)/.exec(await applied.innerText())?.[1];
      // Select it, then open it as a keyboard user would.
      await applied.click();
      await page().keyboard.press('Enter');
      await page()
        .locator('.tab', { hasText: `Plan #${id}` })
        .waitFor();
      await panel().getByText('nightly-batch').first().waitFor();
      await shot('plans-open');
    });

    it("shows the extension's icon in the Extensions view", async () => {
      await runCommand(page(), 'Extensions: Show Enabled Extensions');
      const row = page().locator('.extensions-viewlet .monaco-list-row', { hasText: 'Podplan' }).first();
      await row.waitFor();
      // Loaded, not just named: the image's own size once it has loaded. The list may render the row
      // again (a new <img>), so each poll looks the row up afresh; a bounded wait fails instead of hanging.
      const loaded = await page().waitForFunction(
        () => {
          for (const r of document.querySelectorAll('.extensions-viewlet .monaco-list-row')) {
            if (!r.textContent?.includes('Podplan')) continue;
            const img = r.querySelector('img.icon');
            if (img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0) return { width: img.naturalWidth, src: img.src };
          }
          return undefined;
        },
        undefined,
        { timeout: 60_000 },
      );
      const { width, src } = (await loaded.jsonValue()) as { width: number; src: string };
      assert.ok(width >= 128, `icon ${width} px wide`);
      assert.match(src, /podplan\.png/);
      await shot('extensions-icon');
    });

    // Last: code-server 4.139 shows the Settings editor as a modal over the workbench.
    it('lists the Podplan settings in the User tab of the Settings editor', async () => {
      // The panel below would leave room for four settings of the five.
      await runCommand(page(), 'View: Hide Panel');
      await runCommand(page(), 'Preferences: Open User Settings');
      const editor = page().locator('.settings-editor');
      await editor.waitFor();
      assert.match(await page().locator('.settings-tabs-widget .action-label.checked').innerText(), /^User/);
      await page().locator('.settings-header .suggest-input-container').click();
      await page().keyboard.type('@ext:podplan.podplan');
      // The search counts the extension's settings the User tab lists.
      await editor.locator('.settings-count-widget', { hasText: /^5 Settings Found$/ }).waitFor();
      const titles = editor.locator('.settings-tree-container .setting-item-contents .setting-item-title');
      await editor.locator('.setting-item-title', { hasText: 'Server' }).first().waitFor();
      const shown = (await titles.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      for (const setting of ['History: Database', 'History: Enabled', 'Scheduler Name', 'Scheduler: Lease Namespace', 'Trace: Server'])
        assert.ok(
          shown.some((t) => t.startsWith('Podplan') && t.endsWith(setting)),
          `${setting} in the User tab: ${shown.join(' | ')}`,
        );
      await shot('settings-user');
    });
  });
}

// A platform the package carries no better-sqlite3 addon for, on a Node without node:sqlite: the
// addon is removed from the installed extension, and the workbench runs on Node 20.
describe('the packaged extension where no SQLite driver loads (code-server 4.100.3, addon removed)', function () {
  this.timeout(30 * 60_000);
  const workbench = useWorkbench(LINES[0] as (typeof LINES)[number], {
    name: 'no-driver',
    stepMs: STEP_MS,
    prepare: (workspace) => cp(path.join(ROOT, 'examples/cluster'), workspace, { recursive: true }),
    alter: (installed) => rm(path.join(installed.extension, 'dist/native'), { recursive: true }),
  });

  it('says once, in plain words, that plan history is off and what to do, and previews all the same', async () => {
    const page = workbench.page;
    const notice = page.locator('.notifications-toasts .notification-toast', { hasText: 'plan history is off' });
    await notice.waitFor();
    const text = await notice.innerText();
    assert.match(
      text,
      /Podplan: plan history is off, no SQLite driver could be loaded in Node v20\.\d+\.\d+ \(linux-x64\): node:sqlite needs Node 22\.5 or newer, and there is no better-sqlite3 built for this Node \(module version 115\)\. Plans are still previewed and scheduled, but not kept\./,
    );
    assert.match(text, /set podplan\.history\.enabled to false/);
    assert.doesNotMatch(text, /Cannot find|No such built-in module|at .*\.js:\d+/);
    // Expanded, so that the screenshot shows all of it.
    await notice.hover();
    await notice.locator('.codicon-notifications-expand').click();
    await page.waitForTimeout(500);
    await workbench.shot('notice');
    await runCommandOn(page, 'Podplan: Preview Plan', 'nightly-batch');
    await workbench.panel().locator('p.summary').waitFor();
    assert.equal(await page.locator('.notifications-toasts .notification-toast', { hasText: 'plan history is off' }).count(), 1);
  });
});
