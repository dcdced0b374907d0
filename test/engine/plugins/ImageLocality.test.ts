import assert from 'node:assert/strict';
import {
  calculatePriority,
  factory,
  MAX_CONTAINER_THRESHOLD,
  MIN_THRESHOLD,
  normalizedImageName,
} from '../../../src/engine/plugins/ImageLocality';
import { handleOf, makeNode, makePod, snapshotOf } from '../../builders';
import { argsError, build, runScore } from './harness';

const MB = 1024 * 1024;

describe('engine/plugins/ImageLocality', () => {
  // Three nodes; "40" is on 1 of them, "300" on 2, "2000" on 1: spread factors 1/3, 2/3, 1/3.
  const snapshot = snapshotOf([
    makeNode('n1')
      .image(['gcr.io/40:latest'], 40 * MB)
      .image(['gcr.io/300:latest'], 300 * MB),
    makeNode('n2')
      .image(['gcr.io/300:latest'], 300 * MB)
      .image(['gcr.io/2000:latest'], 2000 * MB),
    makeNode('n3'),
  ]);
  const plugin = build(factory, undefined, handleOf(snapshot));
  const nodes = snapshot.list();

  it('thresholds are 23MB and 1000MB per container', () => {
    assert.equal(MIN_THRESHOLD, 23 * MB);
    assert.equal(MAX_CONTAINER_THRESHOLD, 1000 * MB);
  });

  it('two containers (max 2000MB): sizes scaled by spread, summed, mapped onto 0..100', () => {
    const pod = makePod('p').image('gcr.io/40').container({}, [], 'gcr.io/300');
    // n1: trunc(41943040 × 1/3) = 13981013 + trunc(314572800 × 2/3) = 209715200 → 223696213;
    //     100 × (223696213 - 24117248) / (2097152000 - 24117248) = 19957896500 / 2073034752 = 9.6 → 9
    // n2: 209715200 → 100 × 185597952 / 2073034752 = 8.9 → 8
    // n3: nothing → clamped to the minimum → 0
    assert.deepEqual(runScore(plugin, pod.info, nodes), { preScore: 'ok', raw: [9, 8, 0], normalized: [9, 8, 0] });
  });

  it('one container (max 1000MB): a widely spread large image is discounted', () => {
    // n2: trunc(2097152000 × 1/3) = 699050666 → 100 × (699050666 - 24117248) / (1048576000 - 24117248) = 67493341800 / 1024458752 = 65.9 → 65
    assert.deepEqual(runScore(plugin, makePod('p').image('gcr.io/2000:latest').info, nodes).raw, [0, 65, 0]);
  });

  it('init containers count, both their images and towards the maximum', () => {
    const pod = makePod('p').init({}, false, 'gcr.io/2000');
    // n2: 699050666 as above, but the maximum is 2 × 1000MB: 100 × 674933418 / 2073034752 = 32.6 → 32
    assert.deepEqual(runScore(plugin, pod.info, nodes).raw, [0, 32, 0]);
  });

  describe('calculatePriority clamps the sum into [min, max] before scaling', () => {
    const table: Array<[sum: number, containers: number, score: number]> = [
      [0, 1, 0],
      [MIN_THRESHOLD, 1, 0],
      [MAX_CONTAINER_THRESHOLD, 1, 100],
      [5 * MAX_CONTAINER_THRESHOLD, 1, 100],
      [MAX_CONTAINER_THRESHOLD, 2, 49], // 100 × (1000MB - 23MB) / (2000MB - 23MB) = 97700 / 1977 = 49.4 → 49
    ];
    for (const [sum, containers, score] of table) {
      it(`${sum} bytes over ${containers} container(s) → ${score}`, () =>
        assert.equal(calculatePriority(sum, MAX_CONTAINER_THRESHOLD * containers), score));
    }
  });

  describe('image names are compared as the runtime reports them (":latest" when untagged)', () => {
    const table: Array<[string, string]> = [
      ['nginx', 'nginx:latest'],
      ['nginx:1.25', 'nginx:1.25'],
      ['registry:5000/app', 'registry:5000/app:latest'],
      ['registry:5000/app:v2', 'registry:5000/app:v2'],
    ];
    for (const [name, normalized] of table) it(`${name} → ${normalized}`, () => assert.equal(normalizedImageName(name), normalized));
  });

  it('takes no args', () => assert.equal(argsError(factory, { thresholds: 1 }), 'ImageLocality: unknown field "thresholds"'));
});
