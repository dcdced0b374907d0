import assert from 'node:assert/strict';
import type { DeviceClass } from '../../../../src/engine/api/dra';
import type { Container, Pod } from '../../../../src/engine/api/types';
import { extendedResourceClasses, extendedResourceDeviceRequests } from '../../../../src/engine/plugins/dynamicresources/extended';

// pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources_test.go,
// Test_createRequestsAndMappings_requests: the device requests made for a pod's extended resources.
const R = 'example.com/gpu';
const container = (name: string, requests: Record<string, string>, sidecar = false): Container => ({
  name,
  resources: { requests },
  ...(sidecar ? { restartPolicy: 'Always' as const } : {}),
});
const pod = (containers: Container[], initContainers: Container[] = []): Pod => ({
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers, ...(initContainers.length > 0 ? { initContainers } : {}) },
});
const cls = (name: string, extendedResourceName?: string): DeviceClass => ({
  metadata: { name },
  spec: extendedResourceName ? { extendedResourceName } : {},
});
const requests = (p: Pod, names: string[], classes: DeviceClass[]) =>
  extendedResourceDeviceRequests(p, names, extendedResourceClasses(classes)).map(
    (r) => `${r.name} ${r.exactly?.deviceClassName} ${r.exactly?.count}`,
  );

describe('engine/plugins/dynamicresources/extended', () => {
  const pod1 = pod([container('c0', { [R]: '1', [`${R}1`]: '2' })]);
  const pod2 = pod([container('c0', { [R]: '1' }), container('c1', { [`${R}1`]: '2' })]);
  const podInit = pod([container('c0', { [R]: '1' })], [container('i0', { [`${R}init`]: '2' })]);
  const podInit2 = pod([container('c0', { [R]: '1' })], [container('i0', { [`${R}init`]: '1' }), container('i1', { [`${R}init`]: '2' })]);
  const podInit3 = pod(
    [container('c0', { [R]: '1' })],
    [container('i0', { [`${R}init`]: '1' }), container('s0', { [`${R}init`]: '1' }, true), container('i1', { [`${R}init`]: '2' })],
  );
  const classes = [cls('class', R), cls('class1', `${R}1`), cls('classInit', `${R}init`)];
  const table: Array<[name: string, pod: Pod, names: string[], classes: DeviceClass[], expected: string[]]> = [
    ['nil', pod1, [], classes, []],
    ['one resource match', pod1, [R], [classes[0]!], ['container-0-request-0 class 1']],
    ['one resource match, one resource not match', pod1, [R, `${R}1`], [classes[0]!], ['container-0-request-0 class 1']],
    ['two resources match', pod1, [R, `${R}1`], classes, ['container-0-request-0 class 1', 'container-0-request-1 class1 2']],
    ['two containers match', pod2, [R, `${R}1`], classes, ['container-0-request-0 class 1', 'container-1-request-0 class1 2']],
    [
      'one init container, one regular container',
      podInit,
      [R, `${R}init`],
      classes,
      ['container-0-request-0 classInit 2', 'container-1-request-0 class 1'],
    ],
    [
      'two init containers, one regular container',
      podInit2,
      [R, `${R}init`],
      classes,
      ['container-1-request-0 classInit 2', 'container-2-request-0 class 1'],
    ],
    [
      'three init containers, one sidecar, one regular container',
      podInit3,
      [R, `${R}init`],
      classes,
      ['container-1-request-0 classInit 1', 'container-2-request-0 classInit 2', 'container-3-request-0 class 1'],
    ],
  ];
  for (const [name, p, names, cs, expected] of table) {
    it(name, () => assert.deepEqual(requests(p, names, cs), expected));
  }

  it('a class serves its extendedResourceName and deviceclass.resource.kubernetes.io/<name>; the newest of two naming one resource wins', () => {
    const older: DeviceClass = { metadata: { name: 'b', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { extendedResourceName: R } };
    const newer: DeviceClass = { metadata: { name: 'a', creationTimestamp: '2026-02-01T00:00:00Z' }, spec: { extendedResourceName: R } };
    const map = extendedResourceClasses([older, newer]);
    assert.deepEqual([map.get(R)?.metadata.name, map.get('deviceclass.resource.kubernetes.io/b')?.metadata.name], ['a', 'b']);
  });
});
