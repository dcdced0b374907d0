// Just enough of the Kubernetes protobuf encoding (the `k8s\0` envelope around runtime.Unknown)
// to read what kubectl sends as protobuf: `kubectl create namespace` and `kubectl run` (a Pod).
// Fields not in the tables below are skipped; answers always go back as JSON, which kubectl accepts.
import { errors } from './status';

type Kind = 'string' | 'int' | 'bool' | 'bytes' | Message | MapOf;
interface Message {
  readonly fields: Readonly<Record<number, readonly [name: string, kind: Kind, repeated?: boolean]>>;
}
interface MapOf {
  readonly map: 'string' | Message;
}

const msg = (fields: Message['fields']): Message => ({ fields });
const STRINGS: MapOf = { map: 'string' };

// Field numbers from k8s.io/api and k8s.io/apimachinery generated.proto.
const OBJECT_META = msg({
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int'],
  11: ['labels', STRINGS],
  12: ['annotations', STRINGS],
  14: ['finalizers', 'string', true],
});
// resource.Quantity travels as a message holding its string form
const QUANTITY = msg({ 1: ['string', 'string'] });
const RESOURCES = msg({ 1: ['limits', { map: QUANTITY }], 2: ['requests', { map: QUANTITY }] });
const ENV_VAR = msg({ 1: ['name', 'string'], 2: ['value', 'string'] });
const PORT = msg({
  1: ['name', 'string'],
  2: ['hostPort', 'int'],
  3: ['containerPort', 'int'],
  4: ['protocol', 'string'],
  5: ['hostIP', 'string'],
});
const CONTAINER = msg({
  1: ['name', 'string'],
  2: ['image', 'string'],
  3: ['command', 'string', true],
  4: ['args', 'string', true],
  5: ['workingDir', 'string'],
  6: ['ports', PORT, true],
  7: ['env', ENV_VAR, true],
  8: ['resources', RESOURCES],
  13: ['terminationMessagePath', 'string'],
  14: ['imagePullPolicy', 'string'],
  16: ['stdin', 'bool'],
  17: ['stdinOnce', 'bool'],
  18: ['tty', 'bool'],
  20: ['terminationMessagePolicy', 'string'],
});
const POD_SPEC = msg({
  2: ['containers', CONTAINER, true],
  3: ['restartPolicy', 'string'],
  4: ['terminationGracePeriodSeconds', 'int'],
  6: ['dnsPolicy', 'string'],
  7: ['nodeSelector', STRINGS],
  8: ['serviceAccountName', 'string'],
  10: ['nodeName', 'string'],
  19: ['schedulerName', 'string'],
  20: ['initContainers', CONTAINER, true],
  24: ['priorityClassName', 'string'],
});
const NAMESPACE_SPEC = msg({ 1: ['finalizers', 'string', true] });
const TOP_LEVEL: Readonly<Record<string, Message>> = {
  'v1/Namespace': msg({ 1: ['metadata', OBJECT_META], 2: ['spec', NAMESPACE_SPEC] }),
  'v1/Pod': msg({ 1: ['metadata', OBJECT_META], 2: ['spec', POD_SPEC] }),
};
const TYPE_META = msg({ 1: ['apiVersion', 'string'], 2: ['kind', 'string'] });
const UNKNOWN = msg({ 1: ['typeMeta', TYPE_META], 2: ['raw', 'bytes'] });

class Reader {
  pos = 0;
  constructor(
    readonly buf: Buffer,
    readonly end = buf.length,
  ) {}

  varint(): number {
    let result = 0;
    let shift = 1;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw errors.badRequest('the protobuf body ends inside a varint');
      result += (b & 0x7f) * shift;
      if (b < 0x80) return result;
      shift *= 128;
    }
  }

  bytes(): Buffer {
    const len = this.varint();
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw errors.badRequest(`unsupported protobuf wire type ${wire}`);
  }
}

function decode(buf: Buffer, message: Message): Record<string, unknown> {
  const r = new Reader(buf);
  const out: Record<string, unknown> = {};
  while (r.pos < r.end) {
    const tag = r.varint();
    const field = message.fields[Math.floor(tag / 8)];
    const wire = tag & 7;
    if (!field) {
      r.skip(wire);
      continue;
    }
    const [name, kind, repeated] = field;
    const value = decodeValue(r, kind);
    if (typeof kind === 'object' && 'map' in kind) {
      const [k, v] = value as [string, unknown];
      out[name] = { ...(out[name] as object), [k]: v };
    } else if (repeated) {
      const list = (out[name] ??= []) as unknown[];
      list.push(value);
    } else if (value !== '' && value !== 0 && value !== false) out[name] = value; // proto2 sends the zero values JSON omits
  }
  return out;
}

function decodeValue(r: Reader, kind: Kind): unknown {
  if (kind === 'int') return r.varint();
  if (kind === 'bool') return r.varint() !== 0;
  const bytes = r.bytes();
  if (kind === 'string') return bytes.toString('utf8');
  if (kind === 'bytes') return bytes;
  if ('map' in kind) {
    const entry = decode(bytes, msg({ 1: ['key', 'string'], 2: ['value', kind.map] }));
    const value = kind.map === QUANTITY ? ((entry.value as { string?: string } | undefined)?.string ?? '') : (entry.value ?? '');
    return [entry.key, value];
  }
  return decode(bytes, kind);
}

/** The JSON object of a protobuf request body, for the kinds kubectl sends as protobuf. */
export function decodeProtobuf(body: Buffer): Record<string, unknown> {
  if (body.subarray(0, 4).toString('latin1') !== 'k8s\0')
    throw errors.badRequest('the protobuf body does not start with the k8s magic number');
  const unknown = decode(body.subarray(4), UNKNOWN);
  const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const message = TOP_LEVEL[`${typeMeta.apiVersion}/${typeMeta.kind}`];
  if (!message) throw errors.unsupportedMediaType(['application/json', 'application/yaml']);
  return {
    apiVersion: typeMeta.apiVersion,
    kind: typeMeta.kind,
    ...decode((unknown.raw as Buffer | undefined) ?? Buffer.alloc(0), message),
  };
}
