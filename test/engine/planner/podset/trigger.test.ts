import assert from 'node:assert/strict';
import { ManualClock } from '../../../../src/engine/api/clock';
import { MIN_MEMBER_LABEL, PLANNER_LABEL } from '../../../../src/engine/planner/build';
import { QUIET_TIME_LABEL } from '../../../../src/engine/planner/plan';
import {
  readTrigger,
  Trigger,
  type ScheduleCause,
  type TriggerConfig,
  type TriggerSpec,
} from '../../../../src/engine/planner/podset/trigger';

const spec = (fields: Partial<TriggerSpec> = {}): TriggerSpec => ({
  name: 'batch',
  namespace: 'jobs',
  podSet: 'batch',
  state: 'Planning',
  quietTime: '2m0s',
  ...fields,
});

function config(fields: Partial<TriggerSpec> = {}): TriggerConfig {
  const read = readTrigger(spec(fields));
  if (!read.ok) throw new Error(read.error.message);
  return read.value;
}

/** A trigger on a manual clock that records when and why it turned to Schedule. */
function started(fields: Partial<TriggerSpec> = {}) {
  const clock = new ManualClock(0);
  const turned: Array<[at: number, cause: ScheduleCause]> = [];
  const trigger = new Trigger(config(fields), clock, (_t, cause) => turned.push([clock.now(), cause]));
  return { clock, trigger, turned };
}

describe('engine/planner/podset/trigger', () => {
  describe('reading a trigger', () => {
    it('a good one: its state and quiet time in ms', () => {
      const read = readTrigger(spec({ labels: { [QUIET_TIME_LABEL]: '2m0s', [PLANNER_LABEL]: 'optimize', [MIN_MEMBER_LABEL]: '3' } }));
      assert.deepEqual(read.ok && { state: read.value.state, quietTimeMs: read.value.quietTimeMs }, {
        state: 'Planning',
        quietTimeMs: 120_000,
      });
    });

    it('no quiet time: none (the set waits for a hand)', () => assert.equal(config({ quietTime: undefined }).quietTimeMs, undefined));

    describe('a bad one is an error naming the trigger, the field and what is wrong', () => {
      const QUIET = ['metadata', 'labels', QUIET_TIME_LABEL];
      const table: Array<[fields: Partial<TriggerSpec>, field: string[], code: string, message: string]> = [
        [
          { state: 'Scheduled' },
          ['spec', 'state'],
          'bad-value',
          'ScheduleTrigger jobs/batch: unknown state "Scheduled" (one of Planning, Schedule)',
        ],
        [{ state: '' }, ['spec', 'state'], 'bad-value', 'ScheduleTrigger jobs/batch: unknown state "" (one of Planning, Schedule)'],
        [
          { quietTime: 'two minutes' },
          QUIET,
          'quiet-time/not-duration',
          'ScheduleTrigger jobs/batch: label planner.ciena.io/quiet-time: the quiet time "two minutes" is not a Go duration (time: invalid duration "two minutes"): write one such as 2m0s, 1h30m or 300ms (units ns, us, ms, s, m, h)',
        ],
        [
          { quietTime: '120' },
          QUIET,
          'quiet-time/not-duration',
          'ScheduleTrigger jobs/batch: label planner.ciena.io/quiet-time: the quiet time "120" is not a Go duration (time: missing unit in duration "120"); write 2m0s',
        ],
        [
          { quietTime: '-30s' },
          QUIET,
          'quiet-time/not-label-value',
          'ScheduleTrigger jobs/batch: label planner.ciena.io/quiet-time: the quiet time "-30s" is negative: a label value cannot start with "-", and a quiet time is a wait',
        ],
        [
          { labels: { [PLANNER_LABEL]: 'fastest' } },
          ['metadata', 'labels', PLANNER_LABEL],
          'bad-value',
          'ScheduleTrigger jobs/batch: label planner.ciena.io/planner: unknown planner "fastest" (one of greedy, optimize, exact, pallet)',
        ],
        [
          { labels: { [MIN_MEMBER_LABEL]: 'all' } },
          ['metadata', 'labels', MIN_MEMBER_LABEL],
          'bad-value',
          'ScheduleTrigger jobs/batch: label planner.ciena.io/min-member: "all" is not a whole number of at least 1',
        ],
        [
          { labels: { [MIN_MEMBER_LABEL]: '0' } },
          ['metadata', 'labels', MIN_MEMBER_LABEL],
          'bad-value',
          'ScheduleTrigger jobs/batch: label planner.ciena.io/min-member: "0" is not a whole number of at least 1',
        ],
      ];
      // The quiet time's words are the editor's diagnostic's (engine/planner/podset/quiet-time.ts quietTimeProblem).
      for (const [fields, field, code, message] of table)
        it(message, () => assert.deepEqual(readTrigger(spec(fields)), { ok: false, error: { code, field, message } }));
    });
  });

  describe('the quiet time', () => {
    it('starts with the first pod and turns the trigger to Schedule once it has passed', () => {
      const { clock, trigger, turned } = started();
      clock.advance(600_000);
      assert.deepEqual(turned, [], 'no pod yet: no timer');
      trigger.podArrived();
      assert.equal(trigger.quietUntil, 720_000);
      clock.advance(119_999);
      assert.equal(trigger.state, 'Planning');
      clock.advance(1);
      assert.deepEqual(turned, [[720_000, 'quiet-time']]);
      assert.equal(trigger.state, 'Schedule');
      assert.equal(trigger.quietUntil, undefined);
    });

    it('starts over with each new pod of the set', () => {
      const { clock, trigger, turned } = started();
      trigger.podArrived();
      clock.advance(90_000);
      trigger.podArrived();
      clock.advance(90_000);
      trigger.podArrived();
      clock.advance(119_000);
      assert.deepEqual(turned, []);
      clock.advance(1_000);
      assert.deepEqual(turned, [[300_000, 'quiet-time']]);
      assert.equal(clock.pendingTimers, 0);
    });

    it('a changed quiet time restarts a running timer; removing it stops the timer', () => {
      const { clock, trigger, turned } = started();
      trigger.podArrived();
      clock.advance(60_000);
      trigger.update(config({ quietTime: '30s' }));
      assert.equal(trigger.quietUntil, 90_000);
      trigger.update(config({ quietTime: undefined }));
      clock.advance(600_000);
      assert.deepEqual(turned, []);
      assert.equal(trigger.state, 'Planning');
    });

    it('pods arriving once it is Schedule do not start it', () => {
      const { clock, trigger, turned } = started({ state: 'Schedule' });
      trigger.podArrived();
      clock.advance(600_000);
      assert.deepEqual(turned, []);
    });
  });

  describe('set by hand', () => {
    it('Planning → Schedule plans at once and stops the timer', () => {
      const { clock, trigger, turned } = started();
      trigger.podArrived();
      clock.advance(10_000);
      trigger.update(config({ state: 'Schedule' }));
      assert.deepEqual(turned, [[10_000, 'by-hand']]);
      clock.advance(600_000);
      assert.equal(turned.length, 1);
    });

    it('Schedule → Planning holds the set again; the next pod starts the timer', () => {
      const { clock, trigger, turned } = started({ state: 'Schedule' });
      trigger.update(config());
      assert.equal(trigger.state, 'Planning');
      trigger.podArrived();
      clock.advance(120_000);
      assert.deepEqual(turned, [[120_000, 'quiet-time']]);
    });

    it('a trigger that is stopped (deleted) never fires', () => {
      const { clock, trigger, turned } = started();
      trigger.podArrived();
      trigger.stop();
      clock.advance(600_000);
      assert.deepEqual(turned, []);
    });
  });
});
