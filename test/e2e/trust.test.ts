// Issue 22, "the editor a user can trust", as a new user meets it: the packaged .vsix installed in
// code-server on a copy of examples/cluster. Schedule Now on a file that already holds a
// SchedulePlan (made with the trigger's own code action and saved) once deleted the `---` before
// the plan and glued the next one to `unplaced: []`, then said the plan was applied. Here the
// saved file is read back from disk and parsed: every document is there, whole, and the one
// success message comes after it.
import assert from 'node:assert/strict';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { LINES, ROOT, runCommand, runCommandOn, useWorkbench } from './workbench';

const STEP_MS = 60_000;
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
      },
    });
    const page = () => workbench.page;
    const notification = (text: string | RegExp) => page().locator('.notifications-toasts .notification-toast', { hasText: text });
    const treeRow = (view: string, text: string | RegExp) => page().locator(`.pane:has(.pane-header[aria-label^="${view}"]) .monaco-list-row`, { hasText: text });
    const onDisk = async () => readFile(path.join(workspace, 'podset.yaml'), 'utf8');
    /** The file on disk once it says `done` (the save is written after the key press returns). */
    const saved = async (done: (text: string) => boolean): Promise<string> => {
      for (let i = 0; i < 100; i++) {
        const text = await onDisk();
        if (done(text)) return text;
        await page().waitForTimeout(100);
      }
      return onDisk();
    };
    const kinds = (text: string) => parseAllDocuments(text).map((d) => [String((d.toJS() as { kind?: string } | null)?.kind), d.errors.map((e) => e.message)]);

    it('creates the SchedulePlan with the trigger’s code action (Ctrl+.) and saves it', async () => {
      await page().getByRole('treeitem', { name: 'podset.yaml' }).click();
      await page().locator('.tab.active', { hasText: 'podset.yaml' }).waitFor();
      await page().locator('.monaco-editor .view-lines').first().click();
      await page().keyboard.press('Control+G');
      await page().keyboard.type('5:1');
      await page().keyboard.press('Enter');
      await page().keyboard.press('Control+.');
      const create = page().locator('.action-widget .monaco-list-row', { hasText: 'Create a SchedulePlan for this trigger' });
      await create.waitFor();
      // The widget's pointer block swallows the mouse: move the focus to the action by key.
      for (let i = 0; i < 10 && !/\bfocused\b/.test((await create.getAttribute('class')) ?? ''); i++) await page().keyboard.press('ArrowDown');
      await page().keyboard.press('Enter');
      // Applied: the editor shows the new document.
      await page().locator('.monaco-editor .view-lines', { hasText: 'SchedulePlan' }).first().waitFor();
      await page().keyboard.press('Control+S');
      const text = await saved((t) => t.includes('kind: SchedulePlan'));
      assert.deepEqual(kinds(text), [['ScheduleTrigger', []], ['SchedulePlan', []], ['Job', []], ['Deployment', []], ['ScheduleTrigger', []], ['Pod', []]]);
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
      assert.deepEqual(kinds(text), [['ScheduleTrigger', []], ['SchedulePlan', []], ['Job', []], ['Deployment', []], ['ScheduleTrigger', []], ['Pod', []]]);
      const [trigger, plan] = parseAllDocuments(text).map((d) => d.toJS() as { spec: { state?: string; plan?: unknown[] } });
      assert.equal(trigger?.spec.state, 'Schedule');
      assert.equal(plan?.spec.plan?.length, 6);
      // The comments the user wrote are all still there.
      for (const comment of (await readFile(path.join(ROOT, 'examples/cluster/podset.yaml'), 'utf8')).split('\n').filter((l) => l.startsWith('#'))) assert.ok(text.includes(comment), comment);
      await runCommand(page(), 'Problems: Focus on Problems View');
      await page().locator('.markers-panel', { hasText: 'No problems have been detected in the workspace.' }).waitFor();
      await page().locator('.activitybar .action-item a[aria-label^="Podplan"]').click();
      await treeRow('Pod Sets & Triggers', /^nightly-batch/).first().waitFor();
      assert.equal(await treeRow('Pod Sets & Triggers', /no ScheduleTrigger/).count(), 0);
      await workbench.shot('scheduled-file-whole');
    });
  });
}
