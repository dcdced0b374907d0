// The live scheduler's one life cycle (src/kube/live/lifecycle.ts): where the Lease is, the summary
// in words, and that `podplan run` and the editor's scheduler both go through it instead of
// composing the pieces themselves. (How it behaves on a real API server: test/real/lease.test.ts,
// test/real/editor.test.ts.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { ScheduleOutcome } from '../../../src/engine/scheduler/scheduler';
import { describeSummary, LEASE_NAME, LEASE_NAMESPACE, leaseLocation, type LiveRunSummary } from '../../../src/kube/live/lifecycle';

const ROOT = join(import.meta.dirname, '../../..');

/** The names a source file imports, by module specifier. */
function imports(file: string): Map<string, string[]> {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  const found = new Map<string, string[]>();
  for (const statement of source.statements) {
    // `export { … } from` counts too: the editor reaches the kube layer through src/server/kube.ts, loaded on first use.
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.exportClause;
      const names = clause && ts.isNamedExports(clause) ? clause.elements.map((e) => e.name.text) : [];
      found.set(statement.moduleSpecifier.text, [...(found.get(statement.moduleSpecifier.text) ?? []), ...names]);
      continue;
    }
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    const names = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => e.name.text) : [];
    found.set(statement.moduleSpecifier.text, [...(found.get(statement.moduleSpecifier.text) ?? []), ...names]);
  }
  return found;
}

describe('kube/live/lifecycle', () => {
  describe('leaseLocation: the one Lease every copy elects its leader with', () => {
    const table: Array<[what: string, input: Parameters<typeof leaseLocation>[0], namespace: string, name: string]> = [
      ['nothing said: the default', {}, LEASE_NAMESPACE, LEASE_NAME],
      ['--lease-namespace (or the editor setting)', { namespace: 'ops' }, 'ops', LEASE_NAME],
      ['the configuration', { config: { resourceNamespace: 'sched', resourceName: 'mine' } }, 'sched', 'mine'],
      ['the flag before the configuration', { namespace: 'ops', config: { resourceNamespace: 'sched' } }, 'ops', LEASE_NAME],
      ['in a cluster: the pod namespace', { podNamespace: 'podplan-system' }, 'podplan-system', LEASE_NAME],
      [
        'the configuration before the pod namespace',
        { config: { resourceNamespace: 'sched' }, podNamespace: 'podplan-system' },
        'sched',
        LEASE_NAME,
      ],
      ['an empty namespace is none', { namespace: '' }, LEASE_NAMESPACE, LEASE_NAME],
    ];
    for (const [what, input, namespace, name] of table)
      it(what, () => {
        assert.deepEqual(leaseLocation(input), { namespace, name });
      });
  });

  describe('describeSummary', () => {
    const outcome = { pod: 'ns/a', diagnosis: {} } as unknown as ScheduleOutcome;
    const summary = (s: Partial<LiveRunSummary>): LiveRunSummary => ({
      bound: 0,
      notPlaced: [],
      untried: 0,
      lostLease: 0,
      leadership: 'leading',
      aborted: 0,
      ...s,
    });
    const table: Array<[LiveRunSummary, boolean, string]> = [
      [summary({ bound: 3 }), false, '3 pods bound, 0 not placed'],
      [summary({ bound: 3, notPlaced: [outcome] }), false, '3 pods bound, 1 not placed'],
      [summary({ bound: 2 }), true, '2 pods would be bound, 0 not placed'],
      [
        summary({ notPlaced: [outcome], untried: 3, leadership: 'standby', lostLease: 1 }),
        false,
        '0 pods bound, 1 not placed, 3 not tried',
      ],
    ];
    for (const [s, dryRun, text] of table)
      it(text, () => {
        assert.equal(describeSummary(s, dryRun), text);
      });
  });

  describe('one life cycle for podplan run and the editor', () => {
    // The pieces LiveRun composes: a caller that imports one of them composes its own life cycle.
    const pieces: Record<string, readonly string[]> = {
      'kube/lease': ['LeaderElector'],
      'kube/live/compose': ['composeLiveScheduler'],
      'kube/live/cluster': ['startInformers', 'leaseClient'],
      'kube/live/effects': ['KubeSchedulingEffects'],
      'kube/live/scheduler': ['liveCache'],
      'kube/binder': ['KubeBinder'],
    };
    for (const file of ['src/cli/commands/run.ts', 'src/server/live-source.ts'])
      it(`${file} starts and stops the scheduler through LiveRun only`, () => {
        const direct = imports(file);
        // The editor loads the kube layer on first use: what it uses of it is what src/server/kube.ts re-exports.
        const lazy = [...direct.keys()].some((from) => from === './kube');
        const found = lazy ? new Map([...direct, ...imports('src/server/kube.ts')]) : direct;
        const lifecycle = [...found].find(([from]) => from.endsWith('kube/live/lifecycle'));
        assert.ok(lifecycle?.[1].includes('LiveRun'), `${file} imports LiveRun`);
        assert.ok(lifecycle?.[1].includes('STOP_DEADLINE_MS'), `${file} stops within the one deadline`);
        for (const [from, names] of found)
          for (const [piece, forbidden] of Object.entries(pieces))
            if (from.endsWith(piece))
              for (const name of forbidden)
                assert.ok(!names.includes(name), `${file} imports ${name} from ${from}: composes its own life cycle`);
        assert.doesNotMatch(
          readFileSync(join(ROOT, file), 'utf8'),
          /'podplan-scheduler'|'kube-system'/,
          'the Lease is named in lifecycle.ts only',
        );
      });
  });
});
