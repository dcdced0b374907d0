import assert from 'node:assert/strict';
import { placedBeforeWords } from '../../../src/engine/explain/placed-before-words';

describe('engine/explain/placed-before-words', () => {
  const pod = (name: string) => ({ namespace: 'jobs', pod: name, node: 'n1' });
  const table: Array<[string, Parameters<typeof placedBeforeWords>, ReturnType<typeof placedBeforeWords>]> = [
    ['none placed before it', [[], 'second'], { seen: '', unknown: '' }],
    ['one', [[pod('a')], 'second'], { seen: ' (with the pod the sets planned before it placed on their nodes)', unknown: '' }],
    [
      'two',
      [[pod('a'), pod('b')], undefined],
      { seen: ' (with the 2 pods the sets planned before it placed on their nodes)', unknown: '' },
    ],
    [
      'not kept, with a trigger',
      [undefined, 'second'],
      {
        seen: '',
        unknown:
          ' The plan was recorded before the history kept the pods the sets planned before it placed (history schema version 10): if ScheduleTrigger second depends on other sets, their pods are missing here.',
      },
    ],
    ['not kept, without a trigger: nothing can be missing', [undefined, undefined], { seen: '', unknown: '' }],
  ];
  for (const [name, args, expected] of table) it(name, () => assert.deepEqual(placedBeforeWords(...args), expected));
});
