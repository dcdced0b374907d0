#!/usr/bin/env node
// The CLI entry: runs the bundle that `npm run build` writes (`npm pack` builds it through `prepack`).
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
if (!existsSync(bundle)) {
  console.error('podplan: dist/cli.cjs is missing; run `npm run build` first.');
  process.exit(2);
}
createRequire(import.meta.url)(bundle).main(process.argv.slice(2));
