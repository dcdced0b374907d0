// The panel page in headless Chromium (Debian's /usr/bin/chromium through playwright-core): the real
// bundle (dist/webview.js) under the real panel HTML and its Content Security Policy, served from a
// stand-in webview origin, with a stand-in acquireVsCodeApi that records what the page posts, its
// state and every CSP violation. Themes set VS Code's variables the way VS Code does.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { panelHtml } from '../../src/extension/webview/html';
import type { HostToWebview, WebviewToHost } from '../../src/protocol/webview';

const ORIGIN = 'https://webview.test';
const BUNDLE = 'dist/webview.js';
export const CHROMIUM = '/usr/bin/chromium';

/** Builds the bundle when it is missing or older than its sources, so that `npx mocha` alone works. */
export async function ensureBundle(): Promise<void> {
  const built = existsSync(BUNDLE) ? statSync(BUNDLE).mtimeMs : 0;
  const sources = ['media/src', 'src/protocol'].flatMap((dir) => readdirSync(dir).map((f) => statSync(path.join(dir, f)).mtimeMs));
  if (built > Math.max(...sources)) return;
  await build({
    entryPoints: ['media/src/main.ts'],
    outfile: BUNDLE,
    bundle: true,
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
    sourcemap: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
}

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  await ensureBundle();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
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

// VS Code's Light Modern, Dark Modern and Dark High Contrast values of the variables the panel uses;
// VS Code sets them on <html> and a theme class on <body> the same way.
const THEME_COLORS: Readonly<Record<string, readonly [light: string, dark: string, highContrast: string]>> = {
  foreground: ['#3b3b3b', '#cccccc', '#ffffff'],
  'editor-background': ['#ffffff', '#1f1f1f', '#000000'],
  descriptionForeground: ['#717171', '#9d9d9d', '#ffffff'],
  'button-background': ['#005fb8', '#0078d4', '#000000'],
  'button-foreground': ['#ffffff', '#ffffff', '#ffffff'],
  'button-border': ['#0000001a', '#ffffff12', '#6fc3df'],
  'button-hoverBackground': ['#0258a8', '#026ec1', '#000000'],
  'button-secondaryBackground': ['#e5e5e5', '#313131', '#000000'],
  'button-secondaryForeground': ['#3b3b3b', '#cccccc', '#ffffff'],
  'textLink-foreground': ['#005fb8', '#4daafc', '#21a6ff'],
  errorForeground: ['#f85149', '#f85149', '#f48771'],
  'badge-background': ['#cccccc', '#616161', '#000000'],
  'badge-foreground': ['#3b3b3b', '#f8f8f8', '#ffffff'],
  'panel-border': ['#e5e5e5', '#2b2b2b', '#6fc3df'],
  contrastBorder: ['', '', '#6fc3df'],
  'charts-blue': ['#1a85ff', '#3794ff', '#3794ff'],
  'charts-green': ['#388a34', '#89d185', '#89d185'],
  'charts-yellow': ['#bf8803', '#cca700', '#ffd700'],
  'charts-orange': ['#d18616', '#d18616', '#d18616'],
  'charts-red': ['#e51400', '#f14c4c', '#f14c4c'],
  'charts-purple': ['#652d90', '#b180d7', '#b180d7'],
  'textBlockQuote-background': ['#f8f8f8', '#2b2b2b', '#000000'],
  'editorWidget-background': ['#f8f8f8', '#202020', '#0c141f'],
  'editorHoverWidget-background': ['#f8f8f8', '#202020', '#0c141f'],
  'list-hoverBackground': ['#f2f2f2', '#2a2d2e', '#000000'],
  'list-activeSelectionBackground': ['#e8e8e8', '#04395e', '#000000'],
  focusBorder: ['#005fb8', '#0078d4', '#f38518'],
  'inputValidation-errorBackground': ['#f2dede', '#5a1d1d', '#000000'],
  'inputValidation-errorBorder': ['#be1100', '#be1100', '#f38518'],
  'editorError-foreground': ['#e51400', '#f14c4c', '#f48771'],
  'input-background': ['#ffffff', '#313131', '#000000'],
  'input-foreground': ['#3b3b3b', '#cccccc', '#ffffff'],
  'input-border': ['#cecece', '#3c3c3c', '#6fc3df'],
  'dropdown-background': ['#ffffff', '#313131', '#000000'],
  'dropdown-foreground': ['#3b3b3b', '#cccccc', '#ffffff'],
  'dropdown-border': ['#cecece', '#3c3c3c', '#6fc3df'],
  'settings-textInputBackground': ['#ffffff', '#313131', '#000000'],
  'settings-textInputForeground': ['#3b3b3b', '#cccccc', '#ffffff'],
  'settings-textInputBorder': ['#cecece', '#3c3c3c', '#6fc3df'],
  'settings-dropdownBackground': ['#ffffff', '#313131', '#000000'],
  'settings-dropdownForeground': ['#3b3b3b', '#cccccc', '#ffffff'],
  'settings-dropdownBorder': ['#cecece', '#3c3c3c', '#6fc3df'],
  'settings-dropdownListBorder': ['#e5e5e5', '#454545', '#6fc3df'],
  'settings-headerBorder': ['#e5e5e5', '#2b2b2b', '#6fc3df'],
  'input-placeholderForeground': ['#767676', '#989898', '#ffffffb3'],
  'list-activeSelectionForeground': ['#000000', '#ffffff', '#ffffff'],
  'list-focusOutline': ['#005fb8', '#0078d4', '#f38518'],
  'widget-shadow': ['#00000029', '#0000005c', '#000000'],
  'panelTitle-activeForeground': ['#3b3b3b', '#cccccc', '#ffffff'],
  'panelTitle-activeBorder': ['#005fb8', '#0078d4', '#f38518'],
  'panelTitle-inactiveForeground': ['#3b3b3b', '#9d9d9d', '#ffffff'],
};
export const THEMES = { light: 0, dark: 1, 'high-contrast': 2 } as const;
export type Theme = keyof typeof THEMES;

export interface Recorded {
  readonly posted: WebviewToHost[];
  readonly violations: string[];
  readonly state: unknown;
}

/** A page as VS Code would show it: the panel HTML, the extension's files served from ORIGIN. */
export async function openPanel(
  browser: Browser,
  theme: Theme,
  options: { saved?: unknown; errors?: string[]; dialogs?: string[]; width?: number; height?: number } = {},
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: options.width ?? 1100, height: options.height ?? 900 } });
  page.on('pageerror', (e) => options.errors?.push(e.message));
  page.on('dialog', (d) => {
    options.dialogs?.push(d.message());
    void d.dismiss();
  });
  const files: Record<string, { body: string; type: string }> = {
    '/index.html': {
      body: panelHtml({
        cspSource: ORIGIN,
        script: `${ORIGIN}/dist/webview.js`,
        style: `${ORIGIN}/media/podplan.css`,
        nonce: 'dGVzdG5vbmNldGVzdG5vbmNl',
        title: 'Podplan',
      }),
      type: 'text/html',
    },
    '/dist/webview.js': { body: readFileSync(BUNDLE, 'utf8'), type: 'text/javascript' },
    '/media/podplan.css': { body: readFileSync('media/podplan.css', 'utf8'), type: 'text/css' },
  };
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    const file = url.origin === ORIGIN ? files[url.pathname] : undefined;
    await (file ? route.fulfill({ status: 200, contentType: file.type, body: file.body }) : route.abort());
  });
  // The stand-in for VS Code's acquireVsCodeApi, and a record of what the page did. A string, as
  // tsx would add helpers to a function that the page does not have.
  await page.addInitScript(`
    window.__posted = [];
    window.__violations = [];
    window.__state = ${JSON.stringify(options.saved ?? null)} ?? undefined;
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
    window.acquireVsCodeApi = () => ({
      postMessage(m) { window.__posted.push(m); },
      getState() { return window.__state; },
      setState(s) { window.__state = s; },
    });
  `);
  await page.goto(`${ORIGIN}/index.html`);
  const vars: Record<string, string> = {
    'font-family': 'system-ui, sans-serif',
    'font-size': '13px',
    'editor-font-family': 'monospace',
    'editor-font-size': '13px',
    ...Object.fromEntries(Object.entries(THEME_COLORS).map(([name, colors]) => [name, colors[THEMES[theme]]])),
  };
  await page.evaluate(`
    document.body.className = 'vscode-${theme}';
    for (const [name, value] of Object.entries(${JSON.stringify(vars)})) if (value) document.documentElement.style.setProperty('--vscode-' + name, value);
  `);
  return page;
}

/** Posts a message as the extension would and waits until the view shows it. */
export async function send(page: Page, message: HostToWebview): Promise<void> {
  await page.evaluate((m) => window.postMessage(m, '*'), message);
  await page.waitForSelector(`#root[data-view="${message.type}"][data-entry="${message.nav?.entry ?? 0}"]`);
}

export const recorded = (page: Page): Promise<Recorded> =>
  page.evaluate(() => {
    const w = window as unknown as { __posted: WebviewToHost[]; __violations: string[]; __state: unknown };
    return { posted: w.__posted, violations: w.__violations, state: w.__state };
  });
