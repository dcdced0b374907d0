// The panel page: a strict Content Security Policy with a fresh nonce, the extension's own script
// and stylesheet only, and every interpolated string escaped.
import assert from 'node:assert/strict';
import { contentSecurityPolicy, escapeHtml, newNonce, panelHtml, type PanelPage } from '../../src/extension/webview/html';

const SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';
const page: PanelPage = {
  cspSource: SOURCE,
  script: `${SOURCE}/ext/dist/webview.js`,
  style: `${SOURCE}/ext/media/podplan.css`,
  nonce: 'bm9uY2Vub25jZW5vbmNl',
  title: 'Podplan',
};

describe('extension webview html', () => {
  it('allows scripts by nonce only, styles, images and fonts from the extension only', () => {
    assert.equal(
      contentSecurityPolicy(SOURCE, 'abc'),
      `default-src 'none'; script-src 'nonce-abc'; style-src ${SOURCE}; img-src ${SOURCE} data:; font-src ${SOURCE}; base-uri 'none'; form-action 'none'`,
    );
  });

  it('puts the policy first in the head and loads one script with the nonce and one stylesheet', () => {
    const html = panelHtml(page);
    const head = html.slice(html.indexOf('<head>'), html.indexOf('</head>'));
    assert.match(
      head,
      /^<head>\n<meta charset="UTF-8">\n<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;nonce-bm9uY2Vub25jZW5vbmNl&#39;;/,
    );
    assert.deepEqual(
      [...html.matchAll(/<script[^>]*>/g)].map((m) => m[0]),
      [`<script nonce="${page.nonce}" src="${page.script}">`],
    );
    assert.deepEqual(
      [...html.matchAll(/<link[^>]*>/g)].map((m) => m[0]),
      [`<link rel="stylesheet" href="${page.style}">`],
    );
    assert.doesNotMatch(html, /\sstyle=|<style|\son\w+=/);
  });

  it('escapes what it interpolates', () => {
    const html = panelHtml({ ...page, title: '</title><script>alert(1)</script>', script: '"><img src=x onerror=alert(1)>' });
    assert.ok(!html.includes('<script>alert(1)'));
    assert.ok(!html.includes('<img'));
    assert.ok(html.includes('&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;'));
  });

  it('escapes the five HTML-special characters', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('makes a fresh 128-bit nonce each time', () => {
    const nonces = new Set(Array.from({ length: 50 }, newNonce));
    assert.equal(nonces.size, 50);
    for (const n of nonces) assert.equal(Buffer.from(n, 'base64').length, 16);
  });
});
