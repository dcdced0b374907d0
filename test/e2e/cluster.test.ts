// The live source in a real workbench: the packaged .vsix in code-server (both lines) whose
// KUBECONFIG points at the test API server (code-server and the language server inherit it). The
// user switches the source to the context from the status bar, sees the Cluster view list the
// cluster's nodes and pending pods, applies a plan (confirming the dialog that names the objects
// and fields) and runs Podplan as the scheduler until the pending pods are bound, then stops it.
import assert from 'node:assert/strict';
import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { schedulePlanName } from '../../src/engine/planner/podset/name';
import { PLANNER_CRDS } from '../../src/kube/crds';
import { startTestApiServer, type KubeObject, type TestApiServer } from '../kube/apiserver';
import { node, pod, POD_SETS } from '../kube/live/cluster';
import { LINES, pickItem, ROOT, runCommand, runCommandOn, useWorkbench } from './workbench';

const STEP_MS = 60_000;
const TRIGGER = { apiVersion: 'planner.ciena.io/v1alpha1', kind: 'ScheduleTrigger' } as const;
const PLAN = { apiVersion: 'planner.ciena.io/v1alpha1', kind: 'SchedulePlan' } as const;
const member = (name: string) =>
  pod(name, { namespace: 'shop', schedulerName: POD_SETS, cpu: '2', labels: { 'planner.ciena.io/pod-set': 'cart' } });

async function until(what: string, condition: () => boolean, limitMs = STEP_MS): Promise<void> {
  for (let waited = 0; !condition(); waited += 100) {
    if (waited > limitMs) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const line of LINES) {
  describe(`a kube context as the source in ${line.name} + Chromium`, function () {
    this.timeout(30 * 60_000);
    let api: TestApiServer;
    const previousKubeconfig = process.env['KUBECONFIG'];

    const workbench = useWorkbench(line, {
      name: 'cluster',
      stepMs: STEP_MS,
      // The cluster and a KUBECONFIG naming it, before code-server (which inherits it) starts.
      async prepare(workspace) {
        api = await startTestApiServer();
        api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, ...(PLANNER_CRDS as unknown as KubeObject[]));
        api.create(node('node-a', { cpu: '4', memory: '16Gi', pods: '110' }), node('node-b', { cpu: '4', memory: '16Gi', pods: '110' }));
        api.create({
          ...TRIGGER,
          metadata: { name: 'cart', namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'cart' } },
          spec: { state: 'Planning' },
        });
        api.create(member('cart-0'), member('cart-1'), pod('web-0', { namespace: 'shop' }), pod('web-1', { namespace: 'shop' }));
        process.env['KUBECONFIG'] = await api.writeKubeconfig({ contexts: [{ name: 'e2e-cluster', namespace: 'shop' }] });
        await cp(path.join(ROOT, 'examples/cluster'), workspace, { recursive: true });
      },
    });

    // Registered after useWorkbench's: runs once the workbench is closed.
    after(async () => {
      if (previousKubeconfig === undefined) delete process.env['KUBECONFIG'];
      else process.env['KUBECONFIG'] = previousKubeconfig;
      await api?.close();
    });

    const page = () => workbench.page;
    const shot = (name: string) => workbench.shot(name);
    const treeRow = (view: string, text: string | RegExp) =>
      page().locator(`.pane:has(.pane-header[aria-label^="${view}"]) .monaco-list-row`, { hasText: text });
    /** Expands a tree row until `child` shows (a click can land while the tree re-renders on a cluster update). */
    const expand = async (view: string, row: string | RegExp, child: string) => {
      for (let attempt = 1; ; attempt++) {
        if ((await treeRow(view, row).getAttribute('aria-expanded')) !== 'true') await treeRow(view, row).click();
        try {
          return await treeRow(view, child).waitFor({ timeout: 15_000 });
        } catch (e) {
          if (attempt === 3) throw e;
        }
      }
    };
    const nodeOf = (name: string) =>
      (api.get({ apiVersion: 'v1', kind: 'Pod' }, 'shop', name) as { spec: { nodeName?: string } } | undefined)?.spec.nodeName;

    it('switches the source to the context from the status bar; the Cluster view lists its nodes and pending pods', async () => {
      await page().locator('.statusbar-item', { hasText: 'Workspace files' }).click();
      await page().locator('.quick-input-list .monaco-list-row', { hasText: 'e2e-cluster' }).first().waitFor();
      await shot('pick-source');
      await pickItem(page(), 'e2e-cluster');
      // The source's own item (a progress item names the context too while it reads it).
      await page().locator('.statusbar-item[id$="podplan.source"]', { hasText: 'e2e-cluster' }).waitFor();

      await page().locator('.activitybar .action-item a[aria-label^="Podplan"]').click();
      await treeRow('Cluster', /Source.*cluster: e2e-cluster/).waitFor();
      await expand('Cluster', /Nodes\s*2/, 'node-a');
      await treeRow('Cluster', 'node-b').waitFor();
      await treeRow('Cluster', /Pending pods\s*4/).waitFor();
      await treeRow('Cluster', /podplan/).waitFor();
      await shot('cluster-view');
    });

    it('applies the plan of a trigger after a confirmation naming the context, objects and fields: the SchedulePlan is written and the trigger flipped', async () => {
      await runCommandOn(page(), 'Podplan: Apply Plan to Cluster', 'cart');
      const dialog = page().locator('.monaco-dialog-box');
      await dialog.waitFor();
      const asked = await dialog.innerText();
      const planName = schedulePlanName('shop', 'cart');
      assert.match(asked, /Apply the plan of cart to context e2e-cluster\? 2 pods placed; this writes 2 objects to the cluster\./);
      assert.match(asked, new RegExp(`creates SchedulePlan shop/${planName}: spec\\.plan: 2 pods to nodes`));
      assert.match(asked, /changes ScheduleTrigger shop\/cart: spec\.state: Planning → Schedule/);
      assert.equal(api.get(PLAN, 'shop', planName), undefined, 'nothing written before the confirmation');
      await shot('apply-confirm');
      await dialog.getByRole('button', { name: 'Apply to Cluster' }).click();
      await until('the SchedulePlan is written', () => api.get(PLAN, 'shop', planName) !== undefined);
      await until(
        'the trigger is flipped',
        () => (api.get(TRIGGER, 'shop', 'cart') as { spec: { state: string } }).spec.state === 'Schedule',
      );
      const written = api.get(PLAN, 'shop', planName) as { spec: { plan: Array<{ pod: string }> } };
      assert.deepEqual(written.spec.plan.map((e) => e.pod).sort(), ['cart-0', 'cart-1']);
      await page()
        .locator('.notifications-toasts .notification-toast', { hasText: /applied to context e2e-cluster/ })
        .waitFor();
      await shot('applied');
    });

    it('runs Podplan as the scheduler until the pending pods are bound (the applied set where planned), shows it, and stops', async () => {
      await runCommand(page(), 'Podplan: Run Podplan as Scheduler');
      await until('every pending pod is bound', () => ['web-0', 'web-1', 'cart-0', 'cart-1'].every((name) => nodeOf(name) !== undefined));
      const plan = api.get(PLAN, 'shop', schedulePlanName('shop', 'cart')) as { spec: { plan: Array<{ pod: string; node: string }> } };
      for (const entry of plan.spec.plan)
        assert.equal(nodeOf(entry.pod), entry.node, `${entry.pod} is bound where the applied plan put it`);
      await page()
        .locator('.statusbar-item', { hasText: /e2e-cluster.*4 bound/ })
        .waitFor();
      await treeRow('Cluster', /Scheduler.*running · 4 pods bound/).waitFor();
      await treeRow('Cluster', /Pending pods\s*0/).waitFor();
      await shot('scheduler-running');
      await runCommand(page(), 'Podplan: Stop Podplan Scheduler');
      await treeRow('Cluster', /Scheduler.*stopped/).waitFor();
      assert.equal(api.counters.bindings.get('shop/web-0'), 1, 'bound once');
      await shot('scheduler-stopped');
    });

    it("leaves the kubeconfig's token out of every log the workbench wrote (output channel, server, extension host)", async () => {
      const logs = (await readdir(workbench.installed.userDataDir, { recursive: true, withFileTypes: true })).filter(
        (e) => e.isFile() && e.name.endsWith('.log'),
      );
      assert.ok(
        logs.some((e) => /Podplan/.test(e.name)),
        'the Podplan output channel was written',
      );
      for (const entry of logs) {
        const text = await readFile(path.join(entry.parentPath, entry.name), 'utf8');
        assert.ok(!text.includes(api.token), `${entry.name} holds no token`);
      }
      assert.ok(!workbench.server.output().includes(api.token), 'code-server printed no token');
    });
  });
}
