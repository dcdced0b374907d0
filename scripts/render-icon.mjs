// Renders the extension's marketplace icon (media/icons/podplan.png, 128×128, as package.json's
// `icon` needs a PNG) from the activity bar's media/icons/podplan.svg: the same glyph, white on a
// blue rounded square, drawn by Debian's Chromium. Run after changing the SVG: node scripts/render-icon.mjs
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const svg = readFileSync(new URL('../media/icons/podplan.svg', import.meta.url), 'utf8').replace(
  'width="24" height="24"',
  'width="96" height="96"',
);
const html = `<body style="margin:0;background:transparent"><div style="width:128px;height:128px;border-radius:24px;background:#1f6feb;color:#fff;display:flex;align-items:center;justify-content:center">${svg}</div></body>`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
await page.setContent(html);
await page.screenshot({
  path: new URL('../media/icons/podplan.png', import.meta.url).pathname,
  omitBackground: true,
  clip: { x: 0, y: 0, width: 128, height: 128 },
});
await browser.close();
