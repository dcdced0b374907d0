import assert from 'node:assert/strict';
import { guarded, guardedWithResult } from '../../../src/engine/framework/plugin-call';
import { Code, SUCCESS, unschedulable, type Status } from '../../../src/engine/framework/status';

const boom = (): never => {
  throw new Error('boom');
};
const BOOM: Status = { code: Code.Error, reasons: ['plugin P threw at Bind: boom'], plugin: 'P', stage: 'Bind' };

describe('engine/framework/plugin-call', () => {
  describe('guarded: the status attributed to the plugin and stage, or an Error naming them', () => {
    const table: Array<[name: string, call: () => Status | Promise<Status>, want: Status]> = [
      ['a status', () => unschedulable('full'), { code: Code.Unschedulable, reasons: ['full'], plugin: 'P', stage: 'Bind' }],
      ['a shared frozen status', () => SUCCESS, { code: Code.Success, reasons: [], plugin: 'P', stage: 'Bind' }],
      ['a throw', boom, BOOM],
      [
        'a promise of a status',
        () => Promise.resolve(unschedulable('taken')),
        { code: Code.Unschedulable, reasons: ['taken'], plugin: 'P', stage: 'Bind' },
      ],
      ['a rejected promise', () => Promise.reject(new Error('boom')), BOOM],
      ['a thrown string', () => Promise.reject('boom'), BOOM],
    ];
    for (const [name, call, want] of table) {
      it(name, async () => {
        assert.deepEqual(await guarded('P', 'Bind', call as () => Promise<Status>), want);
      });
    }

    it('keeps the plugin a status already names', () => {
      assert.deepEqual(
        guarded('P', 'Filter', () => ({ ...unschedulable('x'), plugin: 'Inner' })),
        { code: Code.Unschedulable, reasons: ['x'], plugin: 'Inner', stage: 'Filter' },
      );
    });
  });

  it('guardedWithResult: the result with the status, none when the plugin threw', () => {
    assert.deepEqual(
      guardedWithResult('P', 'PreFilter', () => ({ status: SUCCESS, result: { nodeNames: new Set(['n1']) } })),
      {
        status: { code: Code.Success, reasons: [], plugin: 'P', stage: 'PreFilter' },
        result: { nodeNames: new Set(['n1']) },
      },
    );
    assert.deepEqual(guardedWithResult('P', 'PreFilter', boom), {
      status: { code: Code.Error, reasons: ['plugin P threw at PreFilter: boom'], plugin: 'P', stage: 'PreFilter' },
      result: undefined,
    });
  });
});
