// The installed extension opening the 5,000-node / 10,000-pod workspace of the scale e2e
// (test/e2e/scale-workspace.ts) in code-server, as a user opens it: the packaged .vsix installed with
// `code-server --install-extension`, the workbench in headless Chromium (test/e2e/workbench.ts).
// Per run, on a fresh code-server and browser, the moments from the page being asked for, taken
// from the browser (the workbench shown, Podplan's status shown, the preview and its bound shown)
// and from the logs code-server keeps (the extension host started, Podplan activated, the language
// server ready, as its own log says); the CPU time of the extension host and the language server
// at the moment the status showed (from /proc: less disturbed by other processes than wall time);
// and the load average. Also when Chromium counted its own startup complete (it holds every
// service-worker update job until then; code-server 4.139.1's webview host awaits one before it
// writes a webview's content, so a fresh browser's first webview waits for it) and, where the webview
// host marks it, how long the plan panel's host waited for its service worker; then the workspace
// opened again in a new tab of the running browser (what a user with a browser open does). Targets (issue 22):
// Podplan ready in 5 s, a preview in 2 s. Prints figures only. `PODPLAN_E2E_LINE=4.100|newest` runs one line; `PODPLAN_BENCH_RUNS` sets the runs (2).
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { POD_SET, writeScaleWorkspace } from '../test/e2e/scale-workspace';
import {
  installCodeServer,
  installPackaged,
  LINES,
  openWorkbench,
  runCommand,
  runCommandOn,
  type CodeServerLine,
  type Installed,
} from '../test/e2e/workbench';
import type { BrowserContext, Page } from 'playwright-core';
import type { Benchmark } from './benchmark';

const RUNS = Number(process.env['PODPLAN_BENCH_RUNS'] ?? 2);
const STEP_MS = 180_000;
/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** The CPU time (user + system) of a process so far, in seconds; undefined when it is gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return undefined;
  }
}

/** The running process whose command line contains `needle`, if one. */
function processWith(needle: string): number | undefined {
  // The language server is the only process whose command line names this run's installed extension.
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

/** Every file under `dir`. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** The time of the first log line matching `pattern` in the files whose path ends with `suffix` (epoch ms). */
async function loggedAt(logs: string[], suffix: string, pattern: RegExp): Promise<{ at: number; line: string } | undefined> {
  for (const file of logs.filter((f) => f.endsWith(suffix))) {
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(line);
      // The logs are in local time, as Date parses a date and time without a zone.
      if (m && pattern.test(line)) return { at: new Date(`${m[1]}T${m[2]}`).getTime(), line };
    }
  }
  return undefined;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const s = (ms: number | undefined) => (ms === undefined ? '?' : `${(ms / 1000).toFixed(2)} s`);

/** How long the plan panel's webview host waited for its service worker, from its own performance marks (code-server 4.139.1 sets them). */
async function serviceWorkerWait(page: Page): Promise<number | undefined> {
  for (const frame of page.frames().filter((f) => f.url().includes('/webview/browser/pre/index.html'))) {
    const marks = await frame.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])));
    const started = marks['webview/index.html/content/started'];
    const ready = marks['webview/index.html/content/workerReady'];
    if (started !== undefined && ready !== undefined) return ready - started;
  }
  return undefined;
}

async function oneRun(line: CodeServerLine, dir: string, workspace: string, installed: Installed, run: number): Promise<void> {
  const loadBefore = load();
  const asked = Date.now();
  const workbench = await openWorkbench(line, dir, workspace, installed, STEP_MS);
  try {
    const { page } = workbench;
    const shown = Date.now();
    // Resolves once Chromium runs update jobs: an update check of code-server's own worker, which the
    // webview's navigation asks for anyway.
    const startupComplete = page
      .evaluate(async () => {
        await (await navigator.serviceWorker.getRegistration())?.update();
        return Date.now();
      })
      .catch(() => undefined);
    await page.locator('.statusbar-item', { hasText: /pods? to place/ }).waitFor();
    const status = Date.now();
    const server = processWith(path.join(installed.extension, 'dist/server.cjs'));
    // This run's logs: code-server starts a folder named by its start time under logs/.
    const folders = (await readdir(path.join(installed.userDataDir, 'logs'))).sort();
    const logs = await filesUnder(path.join(installed.userDataDir, 'logs', folders[folders.length - 1] ?? ''));
    const hostStarted = await loggedAt(logs, 'exthost.log', /Extension host with pid \d+ started/);
    const host = Number(/pid (\d+)/.exec(hostStarted?.line ?? '')?.[1] ?? NaN);
    const cpuAtStatus = { server: server && cpuSeconds(server), host: cpuSeconds(host) };
    await runCommandOn(page, 'Podplan: Preview Plan', POD_SET);
    const picked = Date.now();
    const panel = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await panel.locator('p.summary').waitFor();
    const preview = Date.now();
    await panel.locator('header .facts', { hasText: /bound \(HiGHS/ }).waitFor();
    const bound = Date.now();
    const waited = await serviceWorkerWait(page);
    const cpuAtBound = { server: server && cpuSeconds(server), host: cpuSeconds(host) };
    // The same preview in a new panel, once the browser's startup is complete: what a user's next
    // preview waits for, without the first webview's wait for Chromium (see docs/CONTRIBUTING.md).
    await startupComplete;
    await runCommand(page, 'View: Close All Editors');
    await panel.locator('p.summary').waitFor({ state: 'detached' });
    await runCommandOn(page, 'Podplan: Preview Plan', POD_SET);
    const pickedAgain = Date.now();
    await panel.locator('p.summary').waitFor();
    const previewAgain = Date.now();
    const activated = await loggedAt(logs, 'exthost.log', /_doActivateExtension podplan\.podplan/);
    const ready = await loggedAt(logs, 'Podplan.log', /ready \d+ ms after the server started/);
    const read = await loggedAt(logs, 'Podplan.log', /read .* in \d+ ms/);
    const since = (at: number | undefined) => (at === undefined ? undefined : at - asked);
    console.log(
      `run ${run + 1} (load ${loadBefore} before, ${load()} after): workbench shown ${s(shown - asked)}; extension host started ${s(since(hostStarted?.at))}; Podplan activated ${s(since(activated?.at))} (${/activationEvent: '([^']*)'/.exec(activated?.line ?? '')?.[1] ?? '?'}); server ready ${s(since(ready?.at))} (${/ready (\d+ ms)/.exec(ready?.line ?? '')?.[1] ?? '?'} after its process started; ${/read .* in \d+ ms/.exec(read?.line ?? '')?.[0] ?? '?'}); status shown ${s(status - asked)} = ${s(status - shown)} after the workbench`,
    );
    console.log(
      `  browser startup complete ${s(since(await startupComplete))}; the panel's webview host waited ${waited === undefined ? '? (not marked by this line)' : s(waited)} for its service worker`,
    );
    console.log(
      `  cpu at the status: server ${cpuAtStatus.server?.toFixed(2) ?? '?'} s, extension host ${cpuAtStatus.host?.toFixed(2) ?? '?'} s; preview shown ${s(preview - picked)} after the pod set was picked, its bound ${s(bound - picked)}, again in a new panel ${s(previewAgain - pickedAgain)}; cpu meanwhile: server ${((cpuAtBound.server ?? NaN) - (cpuAtStatus.server ?? NaN)).toFixed(2)} s, extension host ${((cpuAtBound.host ?? NaN) - (cpuAtStatus.host ?? NaN)).toFixed(2)} s`,
    );
    await reopened(workbench.browser, page, `${workbench.server.url}/?folder=${encodeURIComponent(workspace)}`);
  } finally {
    await workbench.browser.close().catch(() => undefined);
    workbench.server.stop();
  }
}

/**
 * The workspace opened again in a new tab of the running browser, the first tab closed: how a user
 * who keeps a browser open opens a workspace (Chromium's startup is long complete and code-server's
 * worker installed, so the first preview has no startup to wait for). A new window of code-server:
 * its own extension host and language server, reading the workspace afresh.
 */
async function reopened(browser: BrowserContext, first: Page, url: string): Promise<void> {
  await first.close();
  const page = await browser.newPage();
  const asked = Date.now();
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor();
  const shown = Date.now();
  await page.locator('.statusbar-item', { hasText: /pods? to place/ }).waitFor();
  const status = Date.now();
  await runCommandOn(page, 'Podplan: Preview Plan', POD_SET);
  const picked = Date.now();
  await page.frameLocator('iframe.webview.ready').frameLocator('#active-frame').locator('p.summary').waitFor();
  const preview = Date.now();
  const waited = await serviceWorkerWait(page);
  console.log(
    `  reopened in a new tab of the running browser: workbench shown ${s(shown - asked)}; status shown ${s(status - shown)} after the workbench; first preview shown ${s(preview - picked)} after the pod set was picked (its webview host waited ${s(waited)} for its service worker)`,
  );
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'workbench: the installed extension in code-server opening the 5,000-node / 10,000-pod workspace, then a preview',
    async run() {
      const only = process.env['PODPLAN_E2E_LINE'];
      for (const line of LINES.filter((l) => !only || l.tag === only)) {
        installCodeServer(line, 25 * 60_000);
        const dir = await mkdtemp(path.join(tmpdir(), 'podplan-bench-workbench-'));
        try {
          const workspace = path.join(dir, 'workspace');
          await mkdir(workspace);
          await writeScaleWorkspace(workspace);
          // Installed once: each run starts code-server and a browser profile afresh.
          const installed = await installPackaged(line, dir);
          console.log(`${line.name}: ${RUNS} runs, each on a fresh code-server and browser profile`);
          for (let run = 0; run < RUNS; run++) await oneRun(line, path.join(dir, `run-${run}`), workspace, installed, run);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
    },
  },
];
