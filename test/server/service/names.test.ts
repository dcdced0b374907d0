import assert from 'node:assert/strict';
import { quietTimeRewrite } from '../../../src/engine/planner/podset/quiet-time';
import { checkNames, quietTimeIssue, suggestedName } from '../../../src/server/service/names';

describe('server/service/names: Kubernetes names and labels, and the quiet time', () => {
  const meta = (metadata: object) => checkNames({ metadata }).map((i) => [i.code, i.path, i.anchor]);

  it('object names are DNS-1123 subdomains, namespaces DNS-1123 labels', () => {
    assert.deepEqual(meta({ name: 'nightly-batch.v2', namespace: 'team-a' }), []);
    assert.deepEqual(meta({ name: 'Nightly_Batch', namespace: 'team.a' }), [
      ['name/invalid', 'metadata.name', 'value'],
      ['name/invalid', 'metadata.namespace', 'value'],
    ]);
  });

  it('label keys are qualified names (shown at the key), values label values (shown at the value)', () => {
    assert.deepEqual(meta({ name: 'a', labels: { 'example.com/ok': 'fine', 'bad key': 'x', tier: 'front end', empty: '' } }), [
      ['label/key-invalid', 'metadata.labels["bad key"]', 'key'],
      ['label/value-invalid', 'metadata.labels.tier', 'value'],
    ]);
  });

  it('suggests a name that passes', () => {
    assert.equal(suggestedName('Nightly_Batch'), 'nightly-batch');
    assert.equal(suggestedName('ok'), undefined);
    assert.equal(suggestedName('___'), undefined);
  });

  const cases: Array<[string, string | undefined, string | undefined]> = [
    ['2m0s', undefined, undefined],
    ['1.5h', undefined, undefined],
    ['0', undefined, undefined],
    ['2 minutes', 'quiet-time/not-duration', '2m0s'],
    ['2', 'quiet-time/not-duration', '2s'],
    ['300µs', 'quiet-time/not-label-value', '300us'],
    ['-5m', 'quiet-time/not-label-value', undefined],
    ['whenever', 'quiet-time/not-duration', undefined],
  ];
  for (const [text, code, rewrite] of cases) {
    it(`quiet time ${JSON.stringify(text)}: ${code ?? 'fine'}`, () => {
      assert.equal(quietTimeIssue(text)?.code, code);
      assert.equal(quietTimeRewrite(text), rewrite);
    });
  }
});
