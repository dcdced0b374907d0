// Bundles the extension and the language server for Node, the CLI for Node, and the webview for
// the browser. Entry points that do not exist yet are skipped, so the build grows with src/.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const production = process.argv.includes('--production');
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', legalComments: 'none' };
const node = { ...common, platform: 'node', target: 'node20', format: 'cjs', external: ['vscode', 'better-sqlite3', 'highs'] };

const targets = [
  { ...node, entryPoints: ['src/extension/main.ts'], outfile: 'dist/extension.cjs' },
  { ...node, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.cjs' },
  { ...node, entryPoints: ['src/cli/entry.ts'], outfile: 'dist/cli.cjs' },
  { ...common, platform: 'browser', target: 'chrome120', format: 'iife', entryPoints: ['media/src/main.ts'], outfile: 'dist/webview.js' },
];

await Promise.all(targets.filter((t) => existsSync(t.entryPoints[0])).map((t) => build(t)));
