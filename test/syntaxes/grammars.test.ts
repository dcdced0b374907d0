// The TextMate grammars of syntaxes/, tokenized with vscode-textmate and vscode-oniguruma (the
// libraries VS Code itself uses). Both are injections, so each is loaded under a small host grammar
// (only YAML's comments, which the injection must stay out of): what is checked is what our rules
// mark, on the lines the Podplan output channel and a trigger's labels hold.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';
import { STAGES, Code } from '../../src/engine/framework/status';
import { ALL_PLUGIN_NAMES } from '../../src/engine/plugins/names';

const require = createRequire(import.meta.url);
const OUTPUT = 'syntaxes/podplan-output.tmLanguage.json';
const LABELS = 'syntaxes/podplan-yaml-labels.tmLanguage.json';

interface Contributed {
  readonly contributes: {
    readonly grammars: ReadonlyArray<{ readonly scopeName: string; readonly path: string; readonly injectTo: readonly string[] }>;
  };
}

const HOSTS: Record<string, string> = {
  'text.log': '{ "scopeName": "text.log", "patterns": [] }',
  'source.yaml': '{ "scopeName": "source.yaml", "patterns": [{ "name": "comment.line.number-sign.yaml", "match": "#.*$" }] }',
};

let registry: textmate.Registry;

before(async () => {
  const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const files: Record<string, string> = { 'text.log.podplan': OUTPUT, 'source.yaml.podplan-labels': LABELS };
  registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scope) => {
      const file = files[scope];
      if (file) return textmate.parseRawGrammar(readFileSync(file, 'utf8'), file);
      const host = HOSTS[scope];
      return host ? textmate.parseRawGrammar(host, `${scope}.json`) : null;
    },
    getInjections: (scope) => (scope === 'text.log' ? ['text.log.podplan'] : scope === 'source.yaml' ? ['source.yaml.podplan-labels'] : []),
  });
});

/** Each token our grammar marks: its text and its last podplan scope. */
async function marked(host: string, text: string): Promise<Array<[string, string]>> {
  const grammar = await registry.loadGrammar(host);
  assert.ok(grammar, host);
  let state = textmate.INITIAL;
  const out: Array<[string, string]> = [];
  for (const line of text.split('\n')) {
    const result = grammar.tokenizeLine(line, state);
    state = result.ruleStack;
    for (const t of result.tokens) {
      const ours = t.scopes.filter((s) => s.endsWith('.podplan')).at(-1);
      if (ours) out.push([line.slice(t.startIndex, t.endIndex), ours]);
    }
  }
  return out;
}

function alternatives(grammarFile: string, rule: string): string[] {
  const grammar = JSON.parse(readFileSync(grammarFile, 'utf8')) as { repository: Record<string, { match: string }> };
  const match = grammar.repository[rule]?.match ?? '';
  return (/\(\?:([^)]*)\)/.exec(match)?.[1] ?? '').split('|');
}

describe('syntaxes', () => {
  it('are contributed in package.json as injections into the log and YAML grammars', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Contributed;
    assert.deepEqual(
      manifest.contributes.grammars.map((g) => [g.scopeName, g.path, g.injectTo]),
      [
        ['text.log.podplan', `./${OUTPUT}`, ['text.log']],
        ['source.yaml.podplan-labels', `./${LABELS}`, ['source.yaml']],
      ],
    );
  });

  it('know every stage, plugin and status code the engine names', () => {
    assert.deepEqual(alternatives(OUTPUT, 'stage').sort(), [...STAGES].sort());
    assert.deepEqual(alternatives(OUTPUT, 'plugin').sort(), [...ALL_PLUGIN_NAMES].sort());
    assert.deepEqual(alternatives(OUTPUT, 'status-code').sort(), Object.values(Code).sort());
  });

  it('mark pod sets, pods, nodes, stages, plugins, codes and history ids in the output channel', async () => {
    const lines = [
      '2026-11-24 20:26:00.123 [info] preview pod set analytics/nightly-batch (trigger nightly-batch): planner greedy, profile podset-planner-scheduler, history #3: 6 placed, 1 not placed',
      '2026-11-24 20:26:00.124 [info]   pod analytics/big-0 not placed at Filter NodeResourcesFit: 0/9 nodes are available: 9 Insufficient cpu.',
      '2026-11-24 20:26:01.000 [error] [podplan] pod tainted-0 cannot run on node gpu-c2: UnschedulableAndUnresolvable at PreScore PodTopologySpread (plan/node-infeasible)',
    ];
    assert.deepEqual(await marked('text.log', lines.join('\n')), [
      ['pod set', 'keyword.other.pod-set.podplan'],
      ['analytics/nightly-batch', 'variable.other.pod-set.podplan'],
      ['#3', 'constant.numeric.history-id.podplan'],
      ['pod', 'keyword.other.pod.podplan'],
      ['analytics/big-0', 'variable.other.pod.podplan'],
      ['Filter', 'keyword.control.stage.podplan'],
      ['NodeResourcesFit', 'entity.name.function.plugin.podplan'],
      ['0', 'constant.numeric.podplan'],
      ['9', 'constant.numeric.podplan'],
      ['nodes are available', 'markup.bold.podplan'],
      ['pod', 'keyword.other.pod.podplan'],
      ['tainted-0', 'variable.other.pod.podplan'],
      ['node', 'keyword.other.node.podplan'],
      ['gpu-c2', 'entity.name.type.node.podplan'],
      ['UnschedulableAndUnresolvable', 'constant.language.status.podplan'],
      ['PreScore', 'keyword.control.stage.podplan'],
      ['PodTopologySpread', 'entity.name.function.plugin.podplan'],
      ['plan/node-infeasible', 'constant.other.diagnostic-code.podplan'],
    ]);
  });

  it('leave ordinary log words alone', async () => {
    assert.deepEqual(
      await marked('text.log', '2026-11-24 20:26:00.123 [info] restarting the language server; filtering and scoring done'),
      [],
    );
  });

  it('mark the planner label keys and a quiet time that is a Go duration, in block and flow style, quoted or not', async () => {
    const yaml = [
      'metadata:',
      '  labels:',
      '    planner.ciena.io/pod-set: nightly',
      '    planner.ciena.io/quiet-time: 2m0s',
      '    "planner.ciena.io/quiet-time": "1h30m" # quoted',
      '  other: { planner.ciena.io/pod-set: a, planner.ciena.io/quiet-time: 300ms }',
    ].join('\n');
    const key = (name: string): Array<[string, string]> => [
      ['planner.ciena.io', 'support.type.label-prefix.podplan'],
      ['/', 'punctuation.separator.label.podplan'],
      [name, 'support.type.label-name.podplan'],
    ];
    assert.deepEqual(await marked('source.yaml', yaml), [
      ...key('pod-set'),
      ...key('quiet-time'),
      ['2m0s', 'constant.numeric.duration.podplan'],
      ...key('quiet-time'),
      ['1h30m', 'constant.numeric.duration.podplan'],
      ...key('pod-set'),
      ...key('quiet-time'),
      ['300ms', 'constant.numeric.duration.podplan'],
    ]);
  });

  it('mark a quiet time that is not a Go duration as invalid, and nothing in comments or other keys', async () => {
    assert.deepEqual((await marked('source.yaml', '    planner.ciena.io/quiet-time: 2 minutes')).at(-1), [
      '2 minutes',
      'invalid.illegal.duration.podplan',
    ]);
    assert.deepEqual(
      await marked('source.yaml', '# planner.ciena.io/quiet-time: 2m\nexample.com/quiet-time: 2m\nplanner.ciena.io/other: x'),
      [],
    );
  });
});
