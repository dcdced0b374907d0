// The node map's search and order (media/src/query.ts): words narrow the nodes, all must match.
import assert from 'node:assert/strict';
import { parseQuery, sortNodes, usePercent, type NodeOrder } from '../../media/src/query';
import type { NodeUseView } from '../../src/protocol/webview';

const node = (
  name: string,
  zone: string | undefined,
  cpuUsed: number,
  pods: string[] = [],
  labels: Record<string, string> = {},
): NodeUseView => ({
  node: name,
  ...(zone !== undefined ? { zone } : {}),
  labels,
  bound: 0,
  pods,
  owners: pods.length > 0 ? [{ owner: `Deployment/${pods[0]?.split('-')[0] ?? ''}`, pods }] : [],
  resources: [
    { resource: 'cpu', unit: 'millicores', allocatable: 4000, requested: cpuUsed, planned: 0 },
    { resource: 'pods', unit: 'count', allocatable: 110, requested: 0, planned: pods.length },
  ],
});

const nodes = [
  node('web-1', 'z1', 1000, ['api-0']),
  node('web-2', 'z2', 3800, [], { gpu: 'a100' }),
  node('db-1', undefined, 0, ['db-0', 'db-1'], { gpu: '' }),
];

describe('webview query: the node map’s search', () => {
  const cases: Array<[string, string[]]> = [
    ['', ['web-1', 'web-2', 'db-1']],
    ['WEB', ['web-1', 'web-2']],
    ['api-0', ['web-1']],
    ['zone:z2', ['web-2']],
    ['owner:deployment/db', ['db-1']],
    ['owner:api', ['web-1']],
    ['gpu=a100', ['web-2']],
    ['gpu=', ['web-2', 'db-1']],
    ['cpu>50', ['web-2']],
    ['cpu<30%', ['web-1', 'db-1']],
    ['web cpu<30', ['web-1']],
    ['nothing-like-this', []],
  ];
  for (const [query, expected] of cases) {
    it(`"${query}" → ${expected.join(', ') || 'none'}`, () => {
      const p = parseQuery(query);
      assert.deepEqual(
        (p ? nodes.filter(p) : nodes).map((n) => n.node),
        expected,
      );
    });
  }

  it('use is bound plus planned over allocatable, 0 for a resource the node does not offer', () => {
    assert.equal(usePercent(nodes[1] as NodeUseView, 'cpu'), 95);
    assert.equal(usePercent(nodes[0] as NodeUseView, 'nvidia.com/gpu'), 0);
  });

  const orders: Array<[NodeOrder, string[]]> = [
    ['name', ['db-1', 'web-1', 'web-2']],
    ['zone', ['web-1', 'web-2', 'db-1']],
    ['cpu', ['web-2', 'web-1', 'db-1']],
    ['planned', ['db-1', 'web-1', 'web-2']],
  ];
  for (const [order, expected] of orders)
    it(`orders by ${order}`, () =>
      assert.deepEqual(
        sortNodes(nodes, order).map((n) => n.node),
        expected,
      ));
});
