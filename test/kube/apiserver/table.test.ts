import assert from 'node:assert/strict';
import { humanDuration } from './table';
import { startTestApiServer, type TestApiServer } from './index';
import { node, pod, raw } from './client';

describe('test/kube/apiserver: Table answers (kubectl get)', () => {
  const durations: [number, string][] = [
    [-5, '<invalid>'],
    [-1, '0s'],
    [0, '0s'],
    [119, '119s'],
    [120, '2m'],
    [125, '2m5s'],
    [600, '10m'],
    [179 * 60, '179m'],
    [3 * 3600, '3h'],
    [3 * 3600 + 60, '3h1m'],
    [47 * 3600, '47h'],
    [2 * 86400 + 3600, '2d1h'],
    [8 * 86400, '8d'],
    [3 * 365 * 86400, '3y'],
    [(3 * 365 + 4) * 86400, '3y4d'],
    [9 * 365 * 86400, '9y'],
  ];
  for (const [seconds, text] of durations) {
    it(`an age of ${seconds}s prints as ${text} (apimachinery's HumanDuration)`, () => {
      assert.equal(humanDuration(seconds), text);
    });
  }

  describe('over https', () => {
    let server: TestApiServer;
    before(async () => {
      server = await startTestApiServer();
      server.create(
        {
          ...node('n1', { 'node-role.kubernetes.io/control-plane': '' }),
          status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.35.0' } },
        },
        pod('web', { nodeName: 'n1', phase: 'Running' }),
      );
    });
    after(() => server.close());

    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const cases: [string, string[], unknown[]][] = [
      [
        '/api/v1/namespaces/default/pods',
        ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates'],
        ['web', '0/1', 'Running', '0'],
      ],
      ['/api/v1/nodes', ['Name', 'Status', 'Roles', 'Age', 'Version'], ['n1', 'Ready', 'control-plane']],
      ['/api/v1/namespaces', ['Name', 'Status', 'Age'], ['default', 'Active']],
      ['/api/v1/namespaces/default/configmaps', ['Name', 'Age'], []],
    ];
    for (const [path, columns, firstCells] of cases) {
      it(`${path} as a Table has the upstream printer's columns`, async () => {
        const answer = await raw(server, 'GET', path, { accept });
        const t = answer.body as {
          kind: string;
          columnDefinitions: { name: string }[];
          rows: { cells: unknown[]; object: { kind: string } }[];
        };
        assert.equal(t.kind, 'Table');
        assert.deepEqual(
          t.columnDefinitions.map((c) => c.name),
          columns,
        );
        assert.deepEqual(t.rows[0]?.cells.slice(0, firstCells.length) ?? [], firstCells);
        if (t.rows[0]) assert.equal(t.rows[0].object.kind, 'PartialObjectMetadata');
      });
    }

    it('a plain JSON Accept still gets the object list', async () => {
      assert.equal(((await raw(server, 'GET', '/api/v1/nodes', { accept: 'application/json' })).body as { kind: string }).kind, 'NodeList');
    });
  });
});
