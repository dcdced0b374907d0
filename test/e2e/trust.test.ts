// Issue 22, "the editor a user can trust", as a new user meets it: the packaged .vsix installed in
// code-server on a copy of examples/cluster. Schedule Now on a file that already holds a
// SchedulePlan (made with the trigger's own code action and saved) once deleted the `---` before
// the plan and glued the next one to `unplaced: []`, then said the plan was applied. Here the
// saved file is read back from disk and parsed: every document is there, whole, and the one
// success message comes after it.
import assert from 'node:assert/strict';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { parseAllDocuments } from 'yaml';
import { goTo, LINES, ROOT, runCommand, runCommandOn, useWorkbench } from './workbench';

const STEP_MS = 60_000;

// A trigger whose state is misspelt: read as Planning, reported, and fixable.
const TYPO = `apiVersion: planner.ciena.io/v1alpha1
kind: ScheduleTrigger
metadata:
  name: typo
  namespace: analytics
  labels:
    planner.ciena.io/pod-set: typo
spec:
  state: Planing
---
apiVersion: v1
kind: Pod
metadata: { name: typo-0, namespace: analytics, labels: { planner.ciena.io/pod-set: typo } }
spec:
  schedulerName: podset-planner-scheduler
  containers: [{ name: main, resources: { requests: { cpu: 100m, memory: 64Mi } } }]
`;
const ONLY = process.env['PODPLAN_E2E_LINE'];

for (const line of LINES.filter((l) => !ONLY || l.tag === ONLY)) {
  describe(`issue 22 in ${line.name}: Schedule Now never corrupts a file`, function () {
    this.timeout(30 * 60_000);
    let workspace = '';
    const workbench = useWorkbench(line, {
      name: 'trust',
      stepMs: STEP_MS,
      async prepare(folder) {
        workspace = folder;
        await cp(path.join(ROOT, 'examples/cluster'), folder, { recursive: true });
        await writeFile(path.join(folder, 'typo.yaml'), TYPO);
      },
    });
    const page = () => workbench.page;
    const notification = (text: string | RegExp) => page().locator('.notifications-toasts .notification-toast', { hasText: text });
    const treeRow = (view: string, text: string | RegExp) =>
      page().locator(`.pane:has(.pane-header[aria-label^="${view}"]) .monaco-list-row`, { hasText: text });
    const onDisk = async (file = 'podset.yaml') => readFile(path.join(workspace, file), 'utf8');
    /** The file on disk once it says `done` (the save is written after the key press returns). */
    const saved = async (done: (text: string) => boolean, file?: string): Promise<string> => {
      for (let i = 0; i < 100; i++) {
        const text = await onDisk(file);
        if (done(text)) return text;
        await page().waitForTimeout(100);
      }
      return onDisk(file);
    };
    const kinds = (text: string) =>
      parseAllDocuments(text).map((d) => [String((d.toJS() as { kind?: string } | null)?.kind), d.errors.map((e) => e.message)]);

    it('creates the SchedulePlan with the trigger’s code action (Ctrl+.) and saves it', async () => {
      await page().getByRole('treeitem', { name: 'podset.yaml' }).click();
      await page().locator('.tab.active', { hasText: 'podset.yaml' }).waitFor();
      await page().locator('.monaco-editor .view-lines').first().click();
      await goTo(page(), 5, 1);
      await page().keyboard.press('Control+.');
      const create = page().locator('.action-widget .monaco-list-row', { hasText: 'Create a SchedulePlan for this trigger' });
      await create.waitFor();
      // The widget's pointer block swallows the mouse: move the focus to the action by key.
      for (let i = 0; i < 10 && !/\bfocused\b/.test((await create.getAttribute('class')) ?? ''); i++)
        await page().keyboard.press('ArrowDown');
      await page().keyboard.press('Enter');
      // Applied: the editor shows the new document.
      await page().locator('.monaco-editor .view-lines', { hasText: 'SchedulePlan' }).first().waitFor();
      await page().keyboard.press('Control+S');
      const text = await saved((t) => t.includes('kind: SchedulePlan'));
      assert.deepEqual(kinds(text), [
        ['ScheduleTrigger', []],
        ['SchedulePlan', []],
        ['Job', []],
        ['Deployment', []],
        ['ScheduleTrigger', []],
        ['Pod', []],
      ]);
      await workbench.shot('plan-created');
    });

    it('Schedule Now on that file rewrites the plan in place: the saved file parses, every document whole, then says so', async () => {
      await runCommandOn(page(), 'Podplan: Schedule Now', 'nightly-batch');
      const dialog = page().locator('.monaco-dialog-box');
      await dialog.waitFor();
      assert.match(await dialog.innerText(), /podset\.yaml: (changes|rewrites|replaces) SchedulePlan analytics\/nightly-batch/);
      await dialog.getByRole('button', { name: 'Schedule' }).click();
      await notification(/nightly-batch scheduled: 6 pods placed, written to podset\.yaml\./).waitFor();
      const text = await onDisk();
      assert.doesNotMatch(text, /\]---/, 'a separator glued to the plan');
      assert.deepEqual(kinds(text), [
        ['ScheduleTrigger', []],
        ['SchedulePlan', []],
        ['Job', []],
        ['Deployment', []],
        ['ScheduleTrigger', []],
        ['Pod', []],
      ]);
      const [trigger, plan] = parseAllDocuments(text).map((d) => d.toJS() as { spec: { state?: string; plan?: unknown[] } });
      assert.equal(trigger?.spec.state, 'Schedule');
      assert.equal(plan?.spec.plan?.length, 6);
      // The comments the user wrote are all still there.
      for (const comment of (await readFile(path.join(ROOT, 'examples/cluster/podset.yaml'), 'utf8'))
        .split('\n')
        .filter((l) => l.startsWith('#')))
        assert.ok(text.includes(comment), comment);
      await runCommand(page(), 'Problems: Focus on Problems View');
      // podset.yaml has no problem (typo.yaml has its own, below).
      await page().locator('.markers-panel .monaco-list-row', { hasText: 'typo.yaml' }).first().waitFor();
      assert.equal(await page().locator('.markers-panel .monaco-list-row', { hasText: 'podset.yaml' }).count(), 0);
      await page().locator('.activitybar .action-item a[aria-label^="Podplan"]').click();
      // The tree follows the schedule: the set's pods are planned, not "to place".
      await treeRow('Pod Sets & Triggers', /^nightly-batch\s*Schedule · 6 planned/)
        .first()
        .waitFor();
      assert.equal(await treeRow('Pod Sets & Triggers', /no ScheduleTrigger/).count(), 0);
      await workbench.shot('scheduled-file-whole');
    });

    it('the tree shows a misspelt state as written and invalid, and the quick fix on it corrects it', async () => {
      const typo = treeRow('Pod Sets & Triggers', /^typo\s*Planing \(invalid\)/).first();
      await typo.waitFor();
      // Its rows may be below the pane's fold: focus the set and step down to its state.
      await typo.click();
      await page().keyboard.press('ArrowDown');
      await treeRow('Pod Sets & Triggers', /State\s*Planing \(invalid\)/)
        .first()
        .waitFor();
      await workbench.shot('invalid-state');
      await page().locator('.activitybar .action-item a[aria-label^="Explorer"]').click();
      await page().getByRole('treeitem', { name: 'typo.yaml', exact: true }).click();
      await page().locator('.tab.active', { hasText: 'typo.yaml' }).waitFor();
      await page().locator('.monaco-editor .view-lines').first().click();
      await goTo(page(), 9, 10);
      await page().keyboard.press('Control+.');
      const fix = page().locator('.action-widget .monaco-list-row', { hasText: 'Change to Planning' });
      await fix.waitFor();
      for (let i = 0; i < 10 && !/\bfocused\b/.test((await fix.getAttribute('class')) ?? ''); i++) await page().keyboard.press('ArrowDown');
      await page().keyboard.press('Enter');
      await page().keyboard.press('Control+S');
      const fixed = await saved((t) => t.includes('state: Planning'), 'typo.yaml');
      assert.match(fixed, /\n {2}state: Planning\n/);
      await page().locator('.activitybar .action-item a[aria-label^="Podplan"]').click();
      await treeRow('Pod Sets & Triggers', /^typo\s*Planning · 1 to place/)
        .first()
        .waitFor();
    });

    it('the funnel of a preview runs in the pipeline’s order, its counts chaining, Score rejecting none', async () => {
      await runCommandOn(page(), 'Podplan: Preview Plan', 'nightly-report');
      await workbench.panel().locator('vscode-tab-header[data-tab="funnel"]').click();
      const names = await workbench.panel().locator('.step-name').allInnerTexts();
      const score = names.indexOf('Score');
      assert.ok(
        score > 2 && names.slice(2, score).every((n) => n.startsWith('Filter · ')) && names[score + 1] === 'Select host',
        names.join(', '),
      );
      const counts = (await workbench.panel().locator('.step-count').allInnerTexts()).map((t) => t.split(' → ').map(Number));
      counts.slice(1).forEach(([entered], i) => assert.equal(entered, counts[i]?.[1], JSON.stringify(counts)));
      await workbench.shot('funnel');
    });

    it('Explain from the palette offers the pods to pick; ml/trainer’s closest node is gpu-c2, its taint the one obstacle', async () => {
      await runCommand(page(), 'Podplan: Explain Pod Placement');
      await page().locator('.quick-input-list .monaco-list-row', { hasText: 'not placed' }).first().waitFor();
      await pickItemIn(page(), 'trainer', 'ml');
      const callout = workbench.panel().locator('.verdict-text');
      await callout.waitFor();
      assert.match(await callout.innerText(), /^No node fits\. Closest: gpu-c2, which fails only TaintToleration/);
      await workbench.shot('explain-trainer');
    });

    it('Apply Plan with the workspace files as the source offers Select Source (not a trigger, then a failure)', async () => {
      await runCommand(page(), 'Podplan: Apply Plan to Cluster');
      const asked = notification(/Apply Plan writes to a cluster, and Podplan plans from the workspace files now/);
      await asked.waitFor();
      await workbench.shot('apply-needs-source');
      await asked.getByRole('button', { name: 'Select Source…' }).click();
      await page().locator('.quick-input-widget', { hasText: 'Podplan: plan from' }).waitFor();
      await page().locator('.quick-input-list .monaco-list-row', { hasText: 'Workspace files' }).first().waitFor();
      await page().keyboard.press('Escape');
    });

    it('logs no code action of a kind it was not asked for, and no warning as an error', async () => {
      const logs = await readLogs(workbench.installed.userDataDir);
      assert.match(logs, /podplan/i, 'the extension host log was read');
      assert.doesNotMatch(logs, /Code actions of kind '[^']+' requested but returned/);
      // A process warning (punycode's DeprecationWarning on Node 22+) is not logged as an error.
      assert.doesNotMatch(logs, /\[error\][^\n]*Warning/);
    });
  });
}

/** In the open quick pick, types `label` and picks the row with that label and description. */
async function pickItemIn(page: Page, label: string, description: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.fill(label);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: description }).filter({ hasText: label }).first();
  await row.waitFor();
  await row.click();
}

/** Every log file code-server's workbench and extension host wrote under the user data folder. */
async function readLogs(userDataDir: string): Promise<string> {
  const files = (await readdir(path.join(userDataDir, 'logs'), { recursive: true })).filter((f) => f.endsWith('.log'));
  return (await Promise.all(files.map((f) => readFile(path.join(userDataDir, 'logs', f), 'utf8')))).join('\n');
}
