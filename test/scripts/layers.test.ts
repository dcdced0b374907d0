import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
// @ts-expect-error: the rule is plain JavaScript (ESLint loads it from eslint.config.mjs too)
import { layersRule } from '../../scripts/eslint/layers.mjs';

/** Lints `code` as if it were the file `file` with only the layer rule on. */
function layerErrors(file: string, code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser as Linter.Parser },
        plugins: { podplan: { rules: { layers: layersRule } } },
        rules: { 'podplan/layers': 'error' },
      },
    ],
    { filename: path.resolve(file) },
  );
  return messages.map((m) => m.message);
}

describe('scripts/eslint/layers (the rule that keeps the layers of docs/architecture.md apart)', () => {
  const table: Array<[file: string, importing: string, allowed: boolean]> = [
    ['src/engine/api/x.ts', 'vscode', false],
    ['src/engine/api/x.ts', 'node:fs', false],
    ['src/engine/api/x.ts', 'vscode-languageserver/node', false],
    ['src/engine/api/x.ts', 'yaml', false],
    ['src/engine/api/x.ts', '../../manifests', false],
    ['src/engine/api/x.ts', '../framework/status', true],
    ['src/manifests/x.ts', 'yaml', true],
    ['src/manifests/x.ts', '../store/store', false],
    ['src/store/x.ts', 'better-sqlite3', true],
    ['src/platform/x.ts', 'highs', true],
    ['src/engine/planner/x.ts', 'highs', false],
    ['src/extension/x.ts', '../engine/api/types', false],
    ['src/extension/x.ts', 'vscode', true],
    ['src/protocol/x.ts', 'vscode', false],
    ['src/server/x.ts', '../extension/main', false],
    ['src/kube/x.ts', '@kubernetes/client-node', true],
    ['src/kube/x.ts', 'node:https', true],
    ['src/kube/x.ts', '../manifests', true],
    ['src/kube/x.ts', '../engine/api/result', true],
    ['src/kube/x.ts', '../store/store', false],
    ['src/kube/x.ts', '../server/server', false],
    ['src/kube/x.ts', '../cli/source', false],
    ['src/kube/x.ts', 'yaml', false],
    ['src/engine/api/x.ts', '@kubernetes/client-node', false],
    ['src/manifests/x.ts', '../kube', false],
    ['src/store/x.ts', '../kube', false],
    ['src/extension/x.ts', '../kube', false],
    ['src/server/x.ts', '../kube', true],
    ['src/cli/x.ts', '../kube', true],
    ['media/src/x.ts', '../../src/protocol/webview', true],
    ['media/src/x.ts', '../../src/engine/api/types', false],
  ];
  for (const [file, importing, allowed] of table) {
    it(`${file} ${allowed ? 'may' : 'may not'} import "${importing}"`, () => {
      const errors = layerErrors(file, `import { x } from '${importing}';\nexport const y = x;\n`);
      if (allowed) assert.deepEqual(errors, []);
      else assert.match(errors[0] ?? '', /must not import .*docs\/architecture\.md, Layers/);
    });
  }

  it('catches require() and dynamic import() too', () => {
    assert.equal(layerErrors('src/engine/api/x.ts', "export const a = require('fs');\nexport const b = import('vscode');\n").length, 2);
  });

  it('is switched on for src/ in the project configuration', async () => {
    const config = (await new ESLint().calculateConfigForFile('src/engine/api/types.ts')) as { rules: Record<string, unknown> };
    assert.deepEqual(config.rules['podplan/layers'], [2]);
  });
});
