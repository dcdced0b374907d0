// How the webview prints amounts and sizes its bars (it prints; the server computes).
import assert from 'node:assert/strict';
import { barShares, formatTime, usageText } from '../../media/src/format';
import type { ResourceUseView } from '../../src/protocol/webview';

const cpu = (allocatable: number, requested: number, planned: number, before?: number): ResourceUseView => ({
  resource: 'cpu',
  unit: 'millicores',
  allocatable,
  requested,
  planned,
  ...(before !== undefined ? { before } : {}),
});

describe('webview format', () => {
  const bars: Array<[string, ResourceUseView, { requested: number; before: number; planned: number; over: boolean }]> = [
    ['bound and planned within allocatable', cpu(4000, 1000, 2000), { requested: 25, before: 0, planned: 50, over: false }],
    ['exactly full', cpu(4000, 2000, 2000), { requested: 50, before: 0, planned: 50, over: false }],
    ['over: the planned part is cut at the end of the bar', cpu(4000, 3000, 2000), { requested: 75, before: 0, planned: 25, over: true }],
    ['bound pods alone over', cpu(1000, 1500, 500), { requested: 100, before: 0, planned: 0, over: true }],
    ['nothing allocatable', cpu(0, 0, 100), { requested: 0, before: 0, planned: 0, over: true }],
    [
      'pods placed before the plan: between bound and planned',
      cpu(4000, 1000, 1000, 1000),
      { requested: 25, before: 25, planned: 25, over: false },
    ],
    [
      'over with pods placed before: the planned part is cut',
      cpu(4000, 1000, 2000, 2000),
      { requested: 25, before: 50, planned: 25, over: true },
    ],
  ];
  for (const [name, use, shares] of bars) {
    it(`bar: ${name}`, () => assert.deepEqual(barShares(use), shares));
  }

  it('labels a bar with used / allocatable and the planned part', () => {
    assert.equal(usageText(cpu(4000, 1000, 1500)), '2.5 cores / 4 cores (1.5 cores planned)');
    assert.equal(
      usageText({ resource: 'memory', unit: 'bytes', allocatable: 8 * 1024 ** 3, requested: 1024 ** 3, planned: 0 }),
      '1 GiB / 8 GiB',
    );
    assert.equal(usageText(cpu(4000, 0, 1000, 3000)), '4 cores / 4 cores (1 core planned, 3 cores placed before)');
  });

  it('prints times in UTC', () => {
    assert.equal(formatTime(Date.UTC(2025, 0, 31, 23, 5)), '2025-01-31 23:05 UTC');
  });
});
