import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { cli } from './run-cli';

const files = Object.fromEntries(
  readdirSync('examples/cluster')
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => [path.join('examples/cluster', f), readFileSync(path.join('examples/cluster', f), 'utf8')]),
);

describe('cli/arguments: the command line people expect', () => {
  describe("options that do not parse are answered in Podplan's words, naming the command", () => {
    const table: Array<[args: string[], message: RegExp]> = [
      [
        ['schedule', 'examples/cluster', '--sed', '3'],
        /^podplan schedule: unknown option --sed \(did you mean --seed\?\); podplan schedule --help lists its options\n$/,
      ],
      [
        ['explain', 'examples/cluster', 'ml/trainer', '--nod', 'x'],
        /^podplan explain: unknown option --nod \(did you mean --node\?\); podplan explain --help lists its options\n$/,
      ],
      [
        ['schedule', 'examples/cluster', '--frobnicate'],
        /^podplan schedule: unknown option --frobnicate; podplan schedule --help lists its options\n$/,
      ],
      [['schedule', 'examples/cluster', '--seed'], /^podplan schedule: --seed needs a value \(--seed <value>\); /],
      [['schedule', 'examples/cluster', '--json=yes'], /^podplan schedule: --json takes no value; /],
      [['schedule', 'examples/cluster', '-o', 'xml'], /^podplan schedule: no output "xml" here: -o takes json, yaml, wide\n$/],
      [
        ['schedule', 'examples/cluster', '-o', 'yaml', '--json'],
        /^podplan schedule: -o yaml and --json ask for different outputs: give one\n$/,
      ],
      [['explain', 'examples/cluster', 'ml/trainer', '-o', 'wide'], /^podplan explain: no output "wide" here: -o takes json, yaml\n$/],
      [['explain', 'examples/cluster', 'ml/trainer', '-n', 'shop'], /^podplan explain: ml\/trainer is not in namespace shop \(-n\)\n$/],
    ];
    for (const [args, message] of table) {
      it(args.slice(2).join(' '), async () => {
        const { code, stderr } = await cli(args, { ...files });
        assert.equal(code, 2);
        assert.match(stderr, message);
      });
    }
  });

  it('-o json is --json, and -o yaml the same objects as YAML documents', async () => {
    const json = await cli(['schedule', 'examples/cluster', '--no-history', '-o', 'json'], { ...files });
    const alias = await cli(['schedule', 'examples/cluster', '--no-history', '--json'], { ...files });
    assert.equal(json.stdout, alias.stdout);
    const yaml = await cli(['schedule', 'examples/cluster', '--no-history', '-o', 'yaml'], { ...files });
    assert.deepEqual(
      parseAllDocuments(yaml.stdout).map((d) => d.toJS() as unknown),
      json.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    );
  });

  it("-o wide adds each pod's attempts and feasible nodes", async () => {
    const { stdout } = await cli(['schedule', 'examples/cluster', '--no-history', '-o', 'wide'], { ...files });
    assert.match(stdout, /^POD\s+NODE\s+SCORE\s+ATTEMPTS\s+FEASIBLE$/m);
    assert.match(stdout, /^data\/ingest\s+node-b1 \(preempts data\/batch-3, data\/batch-4\)\s+-\s+2\s+1\/1$/m);
  });

  it("-n shows one namespace of the run; explain -n names the pod's namespace", async () => {
    const { stdout } = await cli(['schedule', 'examples/cluster', '--no-history', '-n', 'shop'], { ...files });
    const pods = [...stdout.matchAll(/^(\S+\/\S+)\s/gm)].map((m) => m[1]);
    assert.ok(pods.length > 0 && pods.every((p) => p?.startsWith('shop/')), stdout);
    const short = await cli(['explain', 'examples/cluster', '-n', 'ml', 'trainer', '-o', 'yaml'], { ...files });
    const long = await cli(['explain', 'examples/cluster', 'ml/trainer', '--json'], { ...files });
    assert.deepEqual(parse(short.stdout), JSON.parse(long.stdout));
  });

  it('- reads the manifests from standard input, reported as <stdin>', async () => {
    const stdin = `${files['examples/cluster/nodes.yaml']}\n---\napiVersion: v1\nkind: Pod\nmetadata: { name: p, namespace: default }\nspec:\n  containers: [{ name: main, resources: { requests: { cpu: 2 cores } } }]\n`;
    const { code, stderr } = await cli(['schedule', '-', '--no-history'], {}, {}, { stdin });
    assert.equal(code, 2);
    assert.match(stderr, /^<stdin>:\d+:\d+: error bad-quantity: /m);
    const ok = await cli(['schedule', '-', '--no-history'], {}, {}, { stdin: stdin.replace('2 cores', '100m') });
    assert.match(ok.stdout, /^default\/p\s+\S+/m);
  });
});
