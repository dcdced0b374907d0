// The Podplan panel's first paint at scale, in headless Chromium (Debian's /usr/bin/chromium) under
// the real panel page and CSP (test/media/harness.ts): a plan of 10,000 pods on 5,000 nodes (the node
// map drawn), and one pod's explanation over 5,000 nodes opened on its node × plugin matrix. The
// model is handed to the page first; the clock runs from the host's postMessage to the first frame
// painted after the view is built, so it counts the message's structured clone, building the view
// and drawing it.
import type { Page } from 'playwright-core';
import type { HostToWebview } from '../src/protocol/webview';
import { launch, openPanel } from '../test/media/harness';
import { bigPlan, explanation } from '../test/media/models';

const RUNS = 5;

/** ms from postMessage to the frame after `ready` holds in the page, `then` run in between (a tab to open). */
async function firstPaint(page: Page, message: HostToWebview, ready: string, then?: string): Promise<number> {
  await page.evaluate((m) => ((window as unknown as { __model: unknown }).__model = m), message);
  // A string, not a function: tsx would add helpers to a function that the page does not have.
  return page.evaluate(`new Promise((resolve) => {
    const [first, last] = [${JSON.stringify(ready.split('|')[0])}, ${JSON.stringify(ready.split('|').pop())}];
    const then = ${JSON.stringify(then ?? null)};
    const start = performance.now();
    window.postMessage(window.__model, '*');
    let clicked = then === null;
    const check = () => {
      if (!clicked && document.querySelector(first)) {
        document.querySelector(then).click();
        clicked = true;
      }
      if (clicked && document.querySelector(last)) requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
      else setTimeout(check, 0);
    };
    check();
  })`);
}

function report(label: string, times: number[]): void {
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `${label}: median ${(sorted[Math.floor(sorted.length / 2)] ?? NaN).toFixed(0)} ms, min ${(sorted[0] ?? NaN).toFixed(0)} ms, max ${(sorted[sorted.length - 1] ?? NaN).toFixed(0)} ms over ${sorted.length} runs`,
  );
}

async function run(): Promise<void> {
  const browser = await launch();
  try {
    const plan = bigPlan(5000, 10000);
    const x = explanation(5000);
    console.log(
      `workload: plan of ${plan.assignments.length + plan.unplaced.length} pods on ${plan.nodes.length} nodes (${(JSON.stringify(plan).length / 1e6).toFixed(1)} MB of JSON); explanation of one pod over ${x.matrix.rows.length} nodes × ${x.matrix.filterPlugins.length} filter and ${x.matrix.scorePlugins.length} score plugins (${(JSON.stringify(x).length / 1e6).toFixed(1)} MB); viewport 1100×900, dark theme, ${RUNS} runs each in a fresh page`,
    );
    const planTimes: number[] = [];
    const matrixTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const page = await openPanel(browser, 'dark');
      planTimes.push(
        await firstPaint(
          page,
          { type: 'plan', plan, nav: { entry: i + 1, back: false, forward: false } },
          `#root[data-view="plan"] .node-map canvas`,
        ),
      );
      await page.close();
      const page2 = await openPanel(browser, 'dark');
      matrixTimes.push(
        await firstPaint(
          page2,
          { type: 'explanation', explanation: x, nav: { entry: i + 1, back: false, forward: false } },
          `#root[data-view="explanation"] vscode-tab-header[data-tab="matrix"]|.matrix-body .matrix-row`,
          `vscode-tab-header[data-tab="matrix"]`,
        ),
      );
      await page2.close();
    }
    report('first paint, node map of 5,000 nodes / 10,000 pods', planTimes);
    report('first paint, node × plugin matrix of one pod over 5,000 nodes', matrixTimes);
  } finally {
    await browser.close();
  }
}

export const benchmarks = [{ name: 'webview: first paint at 5,000 nodes / 10,000 pods in headless Chromium', run }];
