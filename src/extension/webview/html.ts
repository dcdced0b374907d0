// The panel's HTML: one script and one stylesheet of the extension's own, under a Content Security
// Policy that allows nothing else (docs/architecture.md, Data that must never be lost or leaked). Free of `vscode` so that a test can check it.
import { randomBytes } from 'node:crypto';

export interface PanelPage {
  /** webview.cspSource: the origin VS Code serves the extension's files from. */
  readonly cspSource: string;
  /** webview.asWebviewUri of dist/webview.js and media/podplan.css. */
  readonly script: string;
  readonly style: string;
  readonly nonce: string;
  readonly title: string;
}

/** A fresh nonce per page: 128 random bits, base64 (a CSP nonce must be unguessable). */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function panelHtml(page: PanelPage): string {
  const e = escapeHtml;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${e(contentSecurityPolicy(page.cspSource, page.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${e(page.style)}">
<title>${e(page.title)}</title>
</head>
<body>
<main id="root"><p class="loading" role="status">Loading…</p></main>
<script nonce="${e(page.nonce)}" src="${e(page.script)}"></script>
</body>
</html>
`;
}
