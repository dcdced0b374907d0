import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadSync } from '@grpc/proto-loader';
import { buildSchedulePlanMethod, LOADER_OPTIONS, plannerDefinition, SERVICE_NAME } from '../../src/rpc/service';

const PROTO = fileURLToPath(new URL('../../src/rpc/planner.proto', import.meta.url));

/** Protobuf wire bytes, written out: a tag byte ((field number << 3) | 2 for length-delimited), a length, the bytes. */
const field = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag, body.length]), body]);
const text = (tag: number, value: string): Buffer => field(tag, Buffer.from(value));

describe('rpc/service: the Pallet planner API on the wire', () => {
  it('defines exactly what planner.proto defines (the descriptor in code is what the bundles load)', () => {
    const fromProto = loadSync(PROTO, LOADER_OPTIONS);
    assert.deepEqual(Object.keys(plannerDefinition).sort(), Object.keys(fromProto).sort());
    for (const name of Object.keys(fromProto)) {
      // The serialized FileDescriptorProto carries every package, message, field, number and method.
      assert.deepEqual(plannerDefinition[name]?.fileDescriptorProtos, fromProto[name]?.fileDescriptorProtos, name);
    }
  });

  it('is the unary method /planner.SchedulePlanner/BuildSchedulePlan', () => {
    assert.equal(SERVICE_NAME, 'planner.SchedulePlanner');
    assert.equal(buildSchedulePlanMethod.path, '/planner.SchedulePlanner/BuildSchedulePlan');
    assert.equal(buildSchedulePlanMethod.requestStream, false);
    assert.equal(buildSchedulePlanMethod.responseStream, false);
  });

  it('encodes the request with Pallet’s field numbers: namespace 1, podSet 2, scheduledPod 3, eligibleNodes 4', () => {
    const request = { namespace: 'ns', podSet: 'web', scheduledPod: 'web-0', eligibleNodes: ['n1', 'n2'] };
    const wire = Buffer.concat([text(0x0a, 'ns'), text(0x12, 'web'), text(0x1a, 'web-0'), text(0x22, 'n1'), text(0x22, 'n2')]);
    assert.deepEqual(buildSchedulePlanMethod.requestSerialize(request), wire);
    assert.deepEqual(buildSchedulePlanMethod.requestDeserialize(wire), request);
  });

  it('encodes assignments as map field 1 of (key 1, value 2) entries', () => {
    const wire = Buffer.concat([
      field(0x0a, Buffer.concat([text(0x0a, 'web-0'), text(0x12, 'n1')])),
      field(0x0a, Buffer.concat([text(0x0a, 'web-1'), text(0x12, 'n2')])),
    ]);
    const response = { assignments: { 'web-0': 'n1', 'web-1': 'n2' } };
    assert.deepEqual(buildSchedulePlanMethod.responseSerialize(response), wire);
    assert.deepEqual(buildSchedulePlanMethod.responseDeserialize(wire), response);
  });

  it('decodes absent fields as proto3 defaults, so a sender that omits them still yields a whole message', () => {
    assert.deepEqual(buildSchedulePlanMethod.requestDeserialize(text(0x12, 'web')), {
      namespace: '',
      podSet: 'web',
      scheduledPod: '',
      eligibleNodes: [],
    });
    assert.deepEqual(buildSchedulePlanMethod.responseDeserialize(Buffer.alloc(0)), { assignments: {} });
  });
});
