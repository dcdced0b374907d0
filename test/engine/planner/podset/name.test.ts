import assert from 'node:assert/strict';
import { fnv32a, safeEncodeString, schedulePlanName } from '../../../../src/engine/planner/podset/name';

describe('engine/planner/podset/name', () => {
  describe('fnv32a is Go hash/fnv New32a over UTF-8 bytes', () => {
    const cases: Array<[string, number]> = [
      ['', 0x811c9dc5],
      ['a', 0xe40c292c],
      ['foobar', 0xbf9cf968],
      ['defaultweb', 3158739800],
      ['équipepods', 61763937],
    ];
    for (const [text, hash] of cases) it(`${JSON.stringify(text)} → ${hash}`, () => assert.equal(fnv32a(text), hash));
  });

  it("safeEncodeString maps each character into apimachinery rand's vowel-free alphabet", () => {
    assert.equal(safeEncodeString('0123456789'), '456789bcdf');
  });

  describe('schedulePlanName follows Pallet: <pod set>-SafeEncodeString(decimal fnv32a(namespace + pod set))', () => {
    const cases: Array<[namespace: string, podSet: string, name: string]> = [
      ['default', 'web', 'web-759dc7fd44'],
      ['prod', 'db-shards', 'db-shards-fff6bbd6d'],
      ['équipe', 'pods', 'pods-b5cb7f7c'],
    ];
    for (const [namespace, podSet, name] of cases)
      it(`${namespace}/${podSet} → ${name}`, () => assert.equal(schedulePlanName(namespace, podSet), name));
  });
});
