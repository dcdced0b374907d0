// A real VS Code workbench for end-to-end tests: code-server (VS Code 1.100 whose extension host is
// this machine's Node) installed by scripts/e2e/install-code-server.sh, with the built extension
// staged the way `vsce package` would ship it, driven by Debian's Chromium (shared/E2E.md).
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CODE_SERVER = path.join(ROOT, '.cache/code-server/node_modules/.bin/code-server');

/** Runs a command to completion, failing with its output when it fails. */
function run(command: string, args: string[], timeoutMs: number, inherit = false): string {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout: timeoutMs, stdio: inherit ? ['ignore', 'inherit', 'inherit'] : 'pipe' });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  }
  return result.stdout ?? '';
}

/** Installs code-server into .cache once (a fresh machine downloads about 300 MB; a warm one checks). */
export function installCodeServer(timeoutMs: number): void {
  run('bash', [path.join(ROOT, 'scripts/e2e/install-code-server.sh')], timeoutMs, true);
}

/**
 * Builds the extension and copies the files `vsce package --no-dependencies` would ship (so
 * .vscodeignore is honoured) into `<extensionsDir>/<publisher>.<name>-<version>`.
 */
export async function stageExtension(extensionsDir: string): Promise<void> {
  run(process.execPath, ['scripts/build.mjs'], 120_000);
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
  const target = path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  const files = run(path.join(ROOT, 'node_modules/.bin/vsce'), ['ls', '--no-dependencies'], 120_000)
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('npm warn'));
  for (const file of files) {
    await mkdir(path.dirname(path.join(target, file)), { recursive: true });
    await cp(path.join(ROOT, file), path.join(target, file));
  }
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
export async function startCodeServer(options: { workspace: string; userDataDir: string; extensionsDir: string; timeoutMs: number }): Promise<CodeServer> {
  await mkdir(path.join(options.userDataDir, 'User'), { recursive: true });
  await writeFile(path.join(options.userDataDir, 'User/settings.json'), JSON.stringify(SETTINGS, null, 2));
  const args = [
    '--bind-addr', '127.0.0.1:0', '--auth', 'none',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
    '--config', path.join(options.userDataDir, 'config.yaml'),
    '--user-data-dir', options.userDataDir, '--extensions-dir', options.extensionsDir,
    options.workspace,
  ];
  // Its own process group, so stop() ends the server, its extension host and the language server.
  const child = spawn(CODE_SERVER, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PASSWORD: undefined } });
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
export async function launchChromium(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
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
