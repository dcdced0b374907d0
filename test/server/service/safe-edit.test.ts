// Every edit Podplan makes to a user's file, on random documents: several objects written in block
// or flow style, with comments, LF or CRLF, the plan before or after its trigger, `---` with and
// without `...`. Each edit is applied and the result read back with yaml's own parser (not the
// guard's reader): it parses, has the documents it should, keeps every comment and marker, and only
// the fields the edit is about differ. And the guard refuses the edits that would corrupt.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Lexer, parseAllDocuments } from 'yaml';
import type { CodeAction, Diagnostic, Range } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { seededRandom, type Random } from '../../../src/engine/api/random';
import { codeActions, scheduleNow, SOURCE, validate } from '../../../src/server/service';
import { checkFileEdit, guardedEdit } from '../../../src/server/service/safe-edit';
import type { History } from '../../../src/server/history';
import { applyEdits } from '../text';
import { uriOf, workspaceOf } from './fixtures';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const pick = <T>(random: Random, list: readonly T[]): T => list[random.int(list.length)] as T;
const chance = (random: Random, p: number): boolean => random.next() < p;

// ---------------------------------------------------------------------------------------------
// A random writer of YAML: block or flow, with comments.

const PLAIN = /^[A-Za-z0-9][\w./-]*$/;
const SPECIAL = /^(true|false|yes|no|on|off|null|~|[-+]?[\d.][\d._eE+-]*|0x.*|0o.*)$/i;
const scalarText = (v: Json): string =>
  typeof v === 'string' ? (PLAIN.test(v) && !SPECIAL.test(v) ? v : JSON.stringify(v)) : JSON.stringify(v);

function flow(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${scalarText(k)}: ${flow(x)}`)
      .join(', ')} }`;
  return scalarText(v);
}

let commentSerial = 0;
const comment = () => `# note ${++commentSerial}`;

/** Block YAML of a mapping at `indent`, nested values in flow style now and then, comments sprinkled. */
function block(v: { [k: string]: Json }, indent: number, random: Random): string[] {
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (chance(random, 0.1)) lines.push(`${pad}${comment()}`);
    const key = `${pad}${scalarText(k)}:`;
    const tail = chance(random, 0.1) ? ` ${comment()}` : '';
    if (x !== null && typeof x === 'object' && !(Array.isArray(x) ? x.length === 0 : Object.keys(x).length === 0) && !chance(random, 0.2)) {
      lines.push(key + tail);
      if (Array.isArray(x)) {
        for (const item of x) {
          if (item !== null && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length > 0) {
            const inner = block(item, indent + 4, random);
            const first = inner.findIndex((l) => !l.trimStart().startsWith('#'));
            lines.push(...inner.slice(0, first), `${pad}  - ${inner[first]!.trimStart()}`, ...inner.slice(first + 1));
          } else lines.push(`${pad}  - ${flow(item)}`);
        }
      } else lines.push(...block(x, indent + 2, random));
    } else lines.push(`${key} ${flow(x)}${tail}`);
  }
  return lines;
}

function writeDocument(value: { [k: string]: Json }, random: Random): string {
  const lead = chance(random, 0.4) ? [comment()] : [];
  const style = random.int(3);
  if (style === 0) return [...lead, flow(value)].join('\n');
  if (style === 1)
    return [
      ...lead,
      `{ ${Object.entries(value)
        .map(([k, x]) => `${k}: ${flow(x)}`)
        .join(',\n  ')} }`,
    ].join('\n');
  return [...lead, ...block(value, 0, random)].join('\n');
}

/** Documents joined by `---` (some closed by `...`, a leading `---` now and then), LF or CRLF. */
function writeFile(values: ReadonlyArray<{ [k: string]: Json }>, random: Random, crlf: boolean): string {
  let text = chance(random, 0.3) ? '---\n' : '';
  values.forEach((v, i) => {
    text += `${writeDocument(v, random)}\n`;
    const end = chance(random, 0.3);
    if (end) text += '...\n';
    if (i < values.length - 1) text += chance(random, 0.2) ? `--- ${comment()}\n` : '---\n';
    else if (chance(random, 0.2)) text += `${comment()}\n`;
  });
  return crlf ? text.replace(/\n/g, '\r\n') : text;
}

const filler = (random: Random, i: number): { [k: string]: Json } => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `settings-${i}`, labels: { team: pick(random, ['a', 'b']) } },
  data: { 'a.txt': 'x: 1', count: String(random.int(100)), flag: 'true', list: '- a' },
});

// ---------------------------------------------------------------------------------------------
// Reading the result with yaml itself.

interface Read {
  readonly values: unknown[];
  readonly errors: string[];
  readonly comments: string[];
  readonly markers: { start: number; end: number };
}

function read(text: string): Read {
  const docs = parseAllDocuments(text, { logLevel: 'silent' });
  const comments: string[] = [];
  const markers = { start: 0, end: 0 };
  for (const token of new Lexer().lex(text)) {
    if (token === '---') markers.start++;
    else if (token === '...') markers.end++;
    else if (token.startsWith('#')) comments.push(token.trimEnd());
  }
  return { values: docs.map((d) => d.toJS() as unknown), errors: docs.flatMap((d) => d.errors.map((e) => e.message)), comments, markers };
}

/** Leaf paths where two values differ (a whole subtree when one side is missing or of another type). */
function differences(a: unknown, b: unknown, path = ''): string[] {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isMap(a) && isMap(b))
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((k) => differences(a[k], b[k], path ? `${path}.${k}` : k));
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) return a.flatMap((x, i) => differences(x, b[i], `${path}[${i}]`));
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path];
}

const contains = (list: readonly string[], sub: readonly string[]): boolean => {
  const left = [...list];
  return sub.every((s) => {
    const i = left.indexOf(s);
    if (i >= 0) left.splice(i, 1);
    return i >= 0;
  });
};

// ---------------------------------------------------------------------------------------------

const NO_HISTORY = { savePreview: () => ({ ok: false, error: 'off' }) } as unknown as History;
const PROBLEMS = 'test/fixtures/workspaces/problems';
const CLUSTER = readFileSync(`${PROBLEMS}/cluster.yaml`, 'utf8');
const valuesOf = (file: string) =>
  parseAllDocuments(readFileSync(`${PROBLEMS}/${file}`, 'utf8')).map((d) => d.toJS() as { [k: string]: Json });

/** Each quick fix's file, and the paths its fix may change (prefixes, in the one document it changes). */
const FIXES: ReadonlyArray<[file: string, may: readonly string[]]> = [
  ['required-state.yaml', ['spec']],
  ['required-label.yaml', ['metadata.labels']],
  ['state-case.yaml', ['spec.state']],
  ['unknown-field.yaml', ['spec.priority']],
  ['bad-name.yaml', ['metadata.name']],
  ['quiet-time-words.yaml', ['metadata.labels.planner.ciena.io/quiet-time']],
  ['quiet-time-micro.yaml', ['metadata.labels.planner.ciena.io/quiet-time']],
  ['scheduler-name.yaml', ['spec.schedulerName']],
  ['unknown-pod.yaml', ['spec.plan']],
  ['unknown-node.yaml', ['spec.plan']],
  ['duplicate-pod.yaml', ['spec.plan']],
  ['pod-outside-set.yaml', ['metadata.labels', 'spec.plan']],
  ['node-infeasible.yaml', ['spec.plan']],
  ['node-overcommitted.yaml', ['spec.plan']],
  ['missing-pods.yaml', ['spec.plan']],
  ['profile-unknown-plugin.yaml', ['profiles']],
];

const ROUNDS = 12;

describe('server/service/safe-edit: every edit on random documents keeps the file whole', function () {
  this.timeout(120_000);
  it('each quick fix: the result parses, keeps every other document, comment and marker, and changes only its fields', () => {
    const random = seededRandom(2222);
    let applied = 0;
    for (const [file, may] of FIXES) {
      const objects = valuesOf(file);
      let fixedHere = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const values: Array<{ [k: string]: Json }> = [...objects];
        for (let i = random.int(3); i > 0; i--) values.splice(random.int(values.length + 1), 0, filler(random, i));
        const crlf = chance(random, 0.4);
        const text = writeFile(values, random, crlf);
        const ws = workspaceOf({ 'cluster.yaml': CLUSTER, 'a.yaml': text });
        const analysis = ws.analysis();
        const uri = uriOf('a.yaml');
        const before = read(text);
        assert.deepEqual(before.errors, [], `the writer made a file that does not parse:\n${text}`);
        const diagnostics = validate(uri, analysis).filter((d: Diagnostic) => d.source === SOURCE);
        for (const d of diagnostics) {
          for (const action of codeActions(uri, d.range, [d], analysis) as CodeAction[]) {
            if (!action.edit?.changes) continue;
            for (const [target, edits] of Object.entries(action.edit.changes)) {
              const was = target === uri ? text : readFileSync(`${PROBLEMS}/cluster.yaml`, 'utf8');
              const after = applyEdits(was, edits);
              const seen = `${file} round ${round} (${crlf ? 'CRLF' : 'LF'}): "${action.title}"\n--- before\n${was}\n--- after\n${after}`;
              const now = read(after);
              const then = target === uri ? before : read(was);
              assert.deepEqual(now.errors, [], seen);
              assert.ok(!crlf || !/[^\r]\n/.test(after), `a bare LF in a CRLF file: ${seen}`);
              const created = action.title.startsWith('Create a SchedulePlan') ? 1 : 0;
              assert.equal(now.values.length, then.values.length + created, seen);
              // A removed key or item takes the comments on its own lines with it.
              const removed = edits.filter((e) => e.newText === '').flatMap((e) => read(removedText(was, e.range)).comments);
              assert.ok(
                contains(
                  now.comments,
                  then.comments.filter((c) => !removed.includes(c)),
                ),
                `a comment lost: ${seen}`,
              );
              assert.ok(now.markers.end >= then.markers.end && now.markers.start >= then.markers.start, `a marker lost: ${seen}`);
              if (created) continue;
              const changed = then.values.flatMap((v, i) => {
                const diff = differences(v, now.values[i]);
                return diff.length ? [diff] : [];
              });
              assert.equal(changed.length, 1, `${changed.length} documents changed: ${seen}`);
              for (const path of changed[0]!)
                assert.ok(
                  may.some((m) => path === m || path.startsWith(`${m}.`) || path.startsWith(`${m}[`)),
                  `${path} changed: ${seen}`,
                );
              applied++;
              fixedHere++;
            }
          }
        }
      }
      assert.ok(fixedHere > 0, `no fix of ${file} was offered in ${ROUNDS} rounds`);
    }
    assert.ok(applied >= FIXES.length * ROUNDS * 0.5, `only ${applied} fixes applied`);
  });

  it('Schedule Now and "Create a SchedulePlan": the trigger’s state and the plan document change, nothing else', () => {
    const random = seededRandom(3333);
    const node = (name: string): { [k: string]: Json } => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
      status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
    });
    const pod = (name: string): { [k: string]: Json } => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { 'planner.ciena.io/pod-set': 'batch' } },
      spec: { schedulerName: 'podset-planner-scheduler', containers: [{ name: 'main', resources: { requests: { cpu: '1' } } }] },
    });
    const trigger: { [k: string]: Json } = {
      apiVersion: 'planner.ciena.io/v1alpha1',
      kind: 'ScheduleTrigger',
      metadata: { name: 'batch', labels: { 'planner.ciena.io/pod-set': 'batch' } },
      spec: { state: 'Planning' },
    };
    const oldPlan: { [k: string]: Json } = {
      apiVersion: 'planner.ciena.io/v1alpha1',
      kind: 'SchedulePlan',
      metadata: { name: 'batch-plan', labels: { 'planner.ciena.io/pod-set': 'batch' } },
      spec: { plan: [{ pod: 'p0', node: 'n0' }] },
    };
    let runs = 0;
    for (let round = 0; round < 40; round++) {
      const withPlan = chance(random, 0.6);
      const values = [node('n0'), node('n1'), pod('p0'), pod('p1'), pod('p2'), filler(random, 1)];
      for (let i = values.length - 1; i > 0; i--) {
        const j = random.int(i + 1);
        [values[i], values[j]] = [values[j]!, values[i]!];
      }
      values.splice(random.int(values.length + 1), 0, trigger);
      const t = values.indexOf(trigger);
      if (withPlan) values.splice(chance(random, 0.5) ? t : t + 1 + random.int(values.length - t), 0, oldPlan);
      const crlf = chance(random, 0.4);
      const text = writeFile(values, random, crlf);
      const uri = uriOf('a.yaml');
      const then = read(text);
      assert.deepEqual(then.errors, [], text);
      const check = (what: string, edits: Parameters<typeof applyEdits>[1], stateChanged: boolean) => {
        const after = applyEdits(text, edits);
        const seen = `round ${round}, ${what} (${crlf ? 'CRLF' : 'LF'}, ${withPlan ? 'with a plan' : 'no plan'})\n--- before\n${text}\n--- after\n${after}`;
        const now = read(after);
        assert.deepEqual(now.errors, [], seen);
        assert.ok(!crlf || !/[^\r]\n/.test(after), `a bare LF in a CRLF file: ${seen}`);
        assert.equal(now.values.length, then.values.length + (withPlan ? 0 : 1), seen);
        const planIndex = withPlan ? values.indexOf(oldPlan) : t + 1;
        const triggerIndex = withPlan || t < planIndex ? t : t;
        const plans = now.values.filter((v) => (v as { kind?: string }).kind === 'SchedulePlan');
        assert.equal(plans.length, 1, seen);
        assert.equal((now.values[planIndex] as { kind?: string }).kind, 'SchedulePlan', seen);
        const others = now.values.filter((_, i) => i !== planIndex);
        const wantOthers = then.values.filter((_, i) => !(withPlan && i === planIndex));
        others.forEach((v, i) => {
          const diff = differences(wantOthers[i], v);
          const isTrigger = (wantOthers[i] as { kind?: string }).kind === 'ScheduleTrigger';
          assert.deepEqual(diff, isTrigger && stateChanged ? ['spec.state'] : [], seen);
          if (isTrigger && stateChanged) assert.equal((v as { spec: { state: string } }).spec.state, 'Schedule', seen);
        });
        void triggerIndex;
        const keptComments = withPlan ? then.comments.filter((c) => !commentsOfDocument(text, planIndex).includes(c)) : then.comments;
        assert.ok(contains(now.comments, keptComments), `a comment lost: ${seen}`);
        assert.ok(now.markers.end >= then.markers.end, `a \`...\` lost: ${seen}`);
        runs++;
      };
      const ws = workspaceOf({ 'a.yaml': text });
      const scheduled = scheduleNow({ trigger: { name: 'batch' } }, ws.analysis(), NO_HISTORY);
      assert.ok(scheduled.ok, scheduled.ok ? '' : `${scheduled.error}\n${text}`);
      check('Schedule Now', scheduled.value.edit.changes?.[uri] ?? [], true);
      const lines = text.split(/\r?\n/);
      const at = lines.findIndex((l) => /kind: ScheduleTrigger|ScheduleTrigger/.test(l));
      const create = codeActions(uri, { start: { line: at, character: 0 }, end: { line: at, character: 0 } }, [], ws.analysis()).find((a) =>
        /SchedulePlan/.test(a.title),
      );
      assert.ok(create?.edit?.changes?.[uri], `no plan action:\n${text}`);
      check(create.title, create.edit.changes[uri], false);
    }
    assert.equal(runs, 80);
  });

  it('the guard refuses edits that would corrupt the file, and says why', () => {
    const text = 'a: 1 # one\n---\nkind: X\nb: 2\n...\n---\nc: [1, 2]\n';
    const at = (offset: number) => {
      const lines = text.slice(0, offset).split('\n');
      return { line: lines.length - 1, character: lines[lines.length - 1]!.length };
    };
    const edit = (start: number, end: number, newText: string) => ({ range: { start: at(start), end: at(end) }, newText });
    const cases: ReadonlyArray<
      [what: string, edits: ReturnType<typeof edit>[], intents: Parameters<typeof checkFileEdit>[3], reason: RegExp]
    > = [
      [
        'a lost `---` merges two documents',
        [edit(11, 15, '')],
        [{ kind: 'set', document: 0, path: ['a'], value: 1 }],
        /would not parse|documents/,
      ],
      [
        'a field it does not mean to change',
        [edit(3, 4, '5')],
        [{ kind: 'set', document: 1, path: ['b'], value: 2 }],
        /document 1 .*would change at a/,
      ],
      ['a lost comment', [edit(5, 10, '')], [], /comment "# one"/],
      ['a lost `...`', [edit(27, 31, '')], [], /`\.\.\.`/],
      ['text that does not parse', [edit(23, 24, ': : [')], [{ kind: 'set', document: 1, path: ['b'], value: 3 }], /would not parse/],
    ];
    for (const [what, edits, intents, reason] of cases) {
      const checked = checkFileEdit('file:///w/a.yaml', text, edits, intents);
      assert.ok(!checked.ok, `${what}: accepted`);
      assert.match(checked.error, reason, what);
    }
    const fine = checkFileEdit('file:///w/a.yaml', text, [edit(26, 27, '3')], [{ kind: 'set', document: 1, path: ['b'], value: 3 }]);
    assert.deepEqual(fine, { ok: true, value: text.replace('b: 2', 'b: 3') });
    const refused = guardedEdit(
      [{ uri: 'file:///w/a.yaml', edit: edit(3, 4, '5'), intent: { kind: 'set', document: 1, path: ['b'], value: 2 } }],
      () => text,
    );
    assert.ok(!refused.ok && refused.error.startsWith('a.yaml: '));
  });

  it('the Schedule Now of issue 22 (a file that already holds a SchedulePlan, from the example) writes a whole file', () => {
    const dir = 'examples/cluster';
    const files = Object.fromEntries(
      ['nodes.yaml', 'podset.yaml', 'priority.yaml', 'profile.yaml', 'workloads.yaml'].map((f) => [f, readFileSync(`${dir}/${f}`, 'utf8')]),
    );
    const uri = uriOf('podset.yaml');
    const ws = workspaceOf(files);
    const create = codeActions(uri, { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } }, [], ws.analysis()).find(
      (a) => a.title === 'Create a SchedulePlan for this trigger',
    );
    const withPlan = applyEdits(files['podset.yaml']!, create!.edit!.changes![uri]!);
    ws.setDisk(uri, withPlan);
    const scheduled = scheduleNow({ trigger: { name: 'nightly-batch', namespace: 'analytics' } }, ws.analysis(), NO_HISTORY);
    assert.ok(scheduled.ok);
    const after = applyEdits(withPlan, scheduled.value.edit.changes![uri]!);
    const now = read(after);
    assert.deepEqual(now.errors, []);
    assert.deepEqual(
      now.values.map((v) => (v as { kind: string }).kind),
      ['ScheduleTrigger', 'SchedulePlan', 'Job', 'Deployment', 'ScheduleTrigger', 'Pod'],
    );
    assert.ok(!/\]---/.test(after));
  });
});

/** The text a range of `text` covers. */
function removedText(text: string, range: Range): string {
  const doc = TextDocument.create('x', 'yaml', 0, text);
  return text.slice(doc.offsetAt(range.start), doc.offsetAt(range.end));
}

/** The comments inside the `index`th document of `text` (by yaml's own ranges). */
function commentsOfDocument(text: string, index: number): string[] {
  const doc = parseAllDocuments(text)[index];
  if (!doc) return [];
  return read(text.slice(doc.range[0], doc.range[2])).comments;
}
