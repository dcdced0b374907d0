// Bundles the extension and the language server for Node, the CLI for Node, and the webview for
// the browser. Entry points that do not exist yet are skipped, so the build grows with src/.
// `--watch` rebuilds on every change (npm run watch); `--production` minifies into a clean dist/.
// better-sqlite3's JavaScript is bundled and its native addon copied to dist/native/ under the name
// src/store/driver.ts looks for (platform, architecture, Node module version), since a .vsix
// carries no node_modules. The addon in node_modules is the one npm built for the Node running
// this script; more can be dropped into dist/native/ under their own names before packaging.
// `highs` (HiGHS as WebAssembly), left external by the bundles, is copied to dist/node_modules/highs,
// where Node resolves the bundles' import('highs'), with its .wasm beside its JavaScript. A dynamic
// import takes the package's "import" condition (build/highs.mjs); highs.js is what require() takes.
import { build, context } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// A package is built from a clean dist/, so no source map or addon of an earlier build ships.
if (production) rmSync('dist', { recursive: true, force: true });
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: watch ? 'info' : 'warning', legalComments: 'none' };
const node = { ...common, platform: 'node', target: 'node20', format: 'cjs', external: ['vscode', 'highs'] };

const targets = [
  { ...node, entryPoints: ['src/extension/main.ts'], outfile: 'dist/extension.cjs' },
  { ...node, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.cjs' },
  { ...node, entryPoints: ['src/cli/entry.ts'], outfile: 'dist/cli.cjs' },
  { ...common, platform: 'browser', target: 'chrome120', format: 'iife', entryPoints: ['media/src/main.ts'], outfile: 'dist/webview.js' },
].filter((t) => existsSync(t.entryPoints[0]));

if (watch) {
  for (const target of targets) await (await context(target)).watch();
} else {
  await Promise.all(targets.map((t) => build(t)));
}

const addon = path.join(
  path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
  'build/Release/better_sqlite3.node',
);
const shipped = `dist/native/better_sqlite3-${process.platform}-${process.arch}-node${process.versions.modules}.node`;
mkdirSync(path.dirname(shipped), { recursive: true });
copyFileSync(addon, shipped);

// Its exports map hides package.json: the package folder is two levels above its main file.
const highs = path.dirname(path.dirname(createRequire(import.meta.url).resolve('highs')));
for (const file of ['package.json', 'LICENSE', 'build/highs.js', 'build/highs.mjs', 'build/highs.wasm']) {
  mkdirSync(path.dirname(path.join('dist/node_modules/highs', file)), { recursive: true });
  copyFileSync(path.join(highs, file), path.join('dist/node_modules/highs', file));
}
