// What package.json and the walkthrough promise a user, checked against what ships: the walkthrough
// describes the example as it is, names the icons as package.json draws them, the extension has its
// icon, Preview Plan and Explain have keys, and every setting shows in the User tab.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

interface Manifest {
  readonly icon?: string;
  readonly contributes: {
    readonly commands: ReadonlyArray<{ readonly command: string; readonly icon?: string }>;
    readonly keybindings?: ReadonlyArray<{ readonly command: string; readonly key: string }>;
    readonly configuration: { readonly properties: Readonly<Record<string, { readonly scope?: string }>> };
  };
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Manifest;
const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

describe('extension contributions and walkthrough', () => {
  it('the walkthrough counts the example’s nodes and zones as nodes.yaml has them', () => {
    const nodes = parseAllDocuments(readFileSync('examples/cluster/nodes.yaml', 'utf8'))
      .map((d) => d.toJS() as { kind?: string; metadata?: { labels?: Record<string, string> } })
      .filter((n) => n?.kind === 'Node');
    const zones = new Set(nodes.map((n) => n.metadata?.labels?.['topology.kubernetes.io/zone']));
    const said = /(\w+) nodes in (\w+) zones/.exec(readFileSync('media/walkthrough/open-example.md', 'utf8'));
    assert.ok(said, 'the walkthrough says how many nodes and zones');
    assert.deepEqual([NUMBERS.indexOf(said[1] ?? ''), NUMBERS.indexOf(said[2] ?? '')], [nodes.length, zones.size]);
  });

  it('the GPU step copies a shipped example and describes it as it is (nodes, the pod set, the files it names)', () => {
    const walkthrough = JSON.parse(readFileSync('package.json', 'utf8')) as {
      readonly files: readonly string[];
      readonly contributes: {
        readonly walkthroughs: ReadonlyArray<{ readonly steps: ReadonlyArray<{ readonly id: string; readonly description: string }> }>;
      };
    };
    const step = walkthrough.contributes.walkthroughs[0]?.steps.find((s) => s.id === 'gpus');
    const link = /command:podplan\.openExample\?([^)]+)\)/.exec(step?.description ?? '');
    assert.ok(link, 'the step links to Copy the GPU Example');
    const [example] = JSON.parse(decodeURIComponent(link[1] ?? '')) as string[];
    assert.ok(walkthrough.files.includes(`examples/${example}/`), `examples/${example}/ ships`);
    const docs = (file: string) =>
      parseAllDocuments(readFileSync(`examples/${example}/${file}`, 'utf8'))
        .map(
          (d) =>
            d.toJS() as { kind?: string; metadata?: { name?: string }; items?: Array<{ kind?: string; metadata?: { name?: string } }> },
        )
        .flatMap((d) => (d.kind === 'List' ? (d.items ?? []) : [d]));
    const text = readFileSync('media/walkthrough/gpus.md', 'utf8').replace(/\s+/g, ' ');
    const said = /(\w+) nodes \(`nodes\.yaml`\)/.exec(text);
    assert.equal(NUMBERS.indexOf(said?.[1] ?? ''), docs('nodes.yaml').filter((d) => d.kind === 'Node').length);
    for (const file of text.matchAll(/`(\w+\.yaml)`/g)) assert.ok(docs(file[1] ?? '').length > 0, `${file[1]} is in examples/${example}`);
    const trigger = /Preview the `([\w-]+)` pod set/.exec(text)?.[1];
    assert.ok(
      docs('podset.yaml').some((d) => d.kind === 'ScheduleTrigger' && d.metadata?.name === trigger),
      `a ScheduleTrigger ${trigger}`,
    );
  });

  it('the walkthrough names the icons as package.json draws them (the play icon is Schedule Now)', () => {
    const icon = (command: string) => manifest.contributes.commands.find((c) => c.command === command)?.icon;
    assert.equal(icon('podplan.scheduleNow'), '$(run)');
    assert.equal(icon('podplan.previewPlan'), '$(preview)');
    const preview = readFileSync('media/walkthrough/preview.md', 'utf8').replace(/\s+/g, ' ');
    assert.match(preview, /the preview icon on a pod set/);
    assert.match(preview, /the play icon beside it is Schedule Now/);
  });

  it('has a 128×128 PNG icon', () => {
    assert.equal(manifest.icon, 'media/icons/podplan.png');
    const png = readFileSync(manifest.icon);
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  });

  it('binds keys to Preview Plan and Explain', () => {
    assert.deepEqual(
      manifest.contributes.keybindings?.map((k) => [k.command, k.key]),
      [
        ['podplan.previewPlan', 'ctrl+alt+p'],
        ['podplan.explainPod', 'ctrl+alt+e'],
      ],
    );
  });

  it('shows every setting in the User tab (no machine scope, which a remote window lists only under Remote)', () => {
    for (const [name, setting] of Object.entries(manifest.contributes.configuration.properties))
      assert.ok(!setting.scope?.startsWith('machine'), `${name}: ${setting.scope}`);
  });
});
