// How diagnoses are kept small. A Diagnosis can list every node of the cluster; a plan of 10,000
// pods on 5,000 nodes must not become 50 million rows. Per pod the store keeps what history views
// read (the reason histogram and the few best scored nodes, as JSON), and the full Diagnosis in
// deflated chunks of many pods, opened only when someone asks for it.
//
// Inside a chunk a diagnosis is a run of varints, every string replaced by its index in the chunk's
// string table: plain JSON of a Diagnosis is mostly repeated keys, plugin names and reasons, which
// cost time to write and to deflate even though deflate then squeezes them out.
import { deflateSync, inflateSync } from 'node:zlib';
import type { Diagnosis, FilterRecord, NodeRejection, NodeScoreRecord, PluginScore, StageOutcome } from '../engine/framework/diagnosis';
import { Code, type Stage, type Status } from '../engine/framework/status';

/** How many nodes rejected the pod for one reason (the counts of "0/5 nodes are available: …"). */
export interface ReasonCount {
  readonly reason: string;
  readonly count: number;
}

export interface DiagnosisSummary {
  readonly reasons: readonly ReasonCount[];
  /** The best scored nodes with their per-plugin breakdown, best first. */
  readonly topScores: readonly NodeScoreRecord[];
}

/**
 * Each rejected node counts once for each of its reasons. A cycle stopped before any node was
 * judged (a PreFilter rejection) counts its reasons for every node, as upstream's message does;
 * one stopped after choosing a node (Reserve, Permit, binding) counts them once.
 */
export function reasonHistogram(d: Diagnosis): ReasonCount[] {
  const counts = new Map<string, number>();
  for (const r of d.rejections) for (const reason of r.reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  if (d.rejections.length === 0 && d.status.code !== Code.Success) {
    const n = d.status.stage === 'PreFilter' ? d.nodesTotal : 1;
    for (const reason of d.status.reasons) counts.set(reason, (counts.get(reason) ?? 0) + n);
  }
  const histogram: ReasonCount[] = [];
  for (const [reason, count] of counts) histogram.push({ reason, count });
  return histogram.sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
}

/** The summary columns of a pod's row: the histogram and the top `topScores` scored nodes, as JSON. */
export interface SummaryColumns {
  readonly reasons: string;
  readonly topScores: string;
}

/**
 * Scores are written `{"node", "total", "plugins": {"<plugin>": [raw, normalized, weight, weighted]}}`:
 * half the bytes of the NodeScoreRecord shape, still plain JSON for sqlite's json functions.
 */
export function summaryColumns(d: Diagnosis, topScores: number): SummaryColumns {
  const scores = d.scores.slice(0, topScores).map((n) => ({
    node: n.node,
    total: n.total,
    plugins: Object.fromEntries(n.plugins.map((p) => [p.plugin, [p.raw, p.normalized, p.weight, p.weighted]])),
  }));
  return { reasons: JSON.stringify(reasonHistogram(d)), topScores: JSON.stringify(scores) };
}

export function readSummary(columns: SummaryColumns): DiagnosisSummary {
  const scores = JSON.parse(columns.topScores) as Array<{ node: string; total: number; plugins: Record<string, [number, number, number, number]> }>;
  return {
    reasons: JSON.parse(columns.reasons) as ReasonCount[],
    topScores: scores.map((n) => ({
      node: n.node,
      total: n.total,
      plugins: Object.entries(n.plugins).map(([plugin, [raw, normalized, weight, weighted]]) => ({ plugin, raw, normalized, weight, weighted })),
    })),
  };
}

// The codec writes every field of these types; a field added to one of them stops the build here
// instead of being dropped from the history without a word.
type Unwritten<T, Written extends keyof T> = Exclude<keyof T, Written>;
const writesAll = <T, Written extends keyof T>(..._: [Unwritten<T, Written>] extends [never] ? [] : [`field not stored: ${Unwritten<T, Written> & string}`]): void => undefined;
writesAll<Diagnosis, 'pod' | 'profile' | 'nodesTotal' | 'nodesEvaluated' | 'feasibleNodes' | 'status' | 'chosenNode' | 'rejections' | 'filters' | 'scores' | 'stages' | 'message'>();
writesAll<Status, 'code' | 'reasons' | 'plugin' | 'stage'>();
writesAll<NodeRejection, 'node' | 'plugin' | 'stage' | 'code' | 'reasons'>();
writesAll<FilterRecord, 'plugin' | 'evaluated' | 'passed'>();
writesAll<NodeScoreRecord, 'node' | 'total' | 'plugins'>();
writesAll<PluginScore, 'plugin' | 'raw' | 'normalized' | 'weight' | 'weighted'>();
writesAll<StageOutcome, 'stage' | 'plugin' | 'node' | 'status'>();

/** Bump when the chunk layout changes; a reader refuses layouts it does not know. */
const CHUNK_FORMAT = 1;
/** Body bytes per chunk before it is closed: enough pods that zlib's per-stream cost vanishes, few enough to open one pod quickly. */
const CHUNK_BYTES = 256 * 1024;
/** Fastest zlib level: the string table and varints already removed most repetition. */
const DEFLATE_LEVEL = 1;

/**
 * The bytes of a chunk body. Counts and string references are unsigned varints (a reference is the
 * string's index + 1, 0 when the field is absent); numbers are zigzag varints shifted left by one,
 * or a 1 followed by a float64 for what is not a small integer.
 */
class ByteWriter {
  bytes = new Uint8Array(CHUNK_BYTES + 64 * 1024);
  length = 0;

  u(value: number): void {
    if (this.length + 10 > this.bytes.length) this.grow();
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.length++] = v;
  }

  n(value: number): void {
    if (Number.isInteger(value) && value >= -(2 ** 30) && value < 2 ** 30) {
      this.u((((value << 1) ^ (value >> 31)) >>> 0) * 2);
      return;
    }
    this.u(1);
    if (this.length + 8 > this.bytes.length) this.grow();
    new DataView(this.bytes.buffer).setFloat64(this.length, value);
    this.length += 8;
  }

  private grow(): void {
    const bigger = new Uint8Array(this.bytes.length * 2);
    bigger.set(this.bytes.subarray(0, this.length));
    this.bytes = bigger;
  }
}

class ByteReader {
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    private at: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  u(): number {
    let value = 0;
    let shift = 0;
    for (;;) {
      const b = this.bytes[this.at++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
      shift += 7;
    }
  }

  n(): number {
    const v = this.u();
    if (v % 2 === 1) {
      const x = this.view.getFloat64(this.at);
      this.at += 8;
      return x;
    }
    const z = v / 2;
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }
}

interface ChunkHeader {
  readonly format: number;
  readonly strings: readonly string[];
  /** Where each diagnosis starts in the body. */
  readonly offsets: readonly number[];
}

/** Writes one chunk at a time, reusing its buffer from chunk to chunk. */
class ChunkWriter {
  private index = new Map<string, number>();
  private strings: string[] = [];
  private offsets: number[] = [];
  private readonly body = new ByteWriter();

  get size(): number {
    return this.offsets.length;
  }

  get full(): boolean {
    return this.body.length >= CHUNK_BYTES;
  }

  add(d: Diagnosis): void {
    const w = this.body;
    this.offsets.push(w.length);
    this.s(d.pod);
    this.s(d.profile);
    w.n(d.nodesTotal);
    w.n(d.nodesEvaluated);
    w.n(d.feasibleNodes);
    this.opt(d.chosenNode);
    this.opt(d.message);
    this.status(d.status);
    w.u(d.rejections.length);
    for (const r of d.rejections) {
      this.s(r.node);
      this.s(r.plugin);
      this.s(r.stage);
      this.s(r.code);
      this.reasons(r.reasons);
    }
    w.u(d.filters.length);
    for (const f of d.filters) {
      this.s(f.plugin);
      w.n(f.evaluated);
      w.n(f.passed);
    }
    w.u(d.scores.length);
    for (const n of d.scores) {
      this.s(n.node);
      w.n(n.total);
      w.u(n.plugins.length);
      for (const p of n.plugins) {
        this.s(p.plugin);
        w.n(p.raw);
        w.n(p.normalized);
        w.n(p.weight);
        w.n(p.weighted);
      }
    }
    w.u(d.stages.length);
    for (const g of d.stages) {
      this.s(g.stage);
      this.s(g.plugin);
      this.opt(g.node);
      this.status(g.status);
    }
  }

  private s(text: string): void {
    let i = this.index.get(text);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(text);
      this.index.set(text, i);
    }
    this.body.u(i + 1);
  }

  private opt(text: string | undefined): void {
    if (text === undefined) this.body.u(0);
    else this.s(text);
  }

  private reasons(list: readonly string[]): void {
    this.body.u(list.length);
    for (const r of list) this.s(r);
  }

  private status(st: Status): void {
    this.s(st.code);
    this.opt(st.plugin);
    this.opt(st.stage);
    this.reasons(st.reasons);
  }

  /** [header length: u32][header JSON][body], deflated; the writer then starts the next chunk. */
  seal(): Buffer {
    const header: ChunkHeader = { format: CHUNK_FORMAT, strings: this.strings, offsets: this.offsets };
    const head = Buffer.from(JSON.stringify(header), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(head.length);
    const sealed = deflateSync(Buffer.concat([length, head, this.body.bytes.subarray(0, this.body.length)]), { level: DEFLATE_LEVEL });
    this.index = new Map();
    this.strings = [];
    this.offsets = [];
    this.body.length = 0;
    return sealed;
  }
}

function decode(strings: readonly string[], r: ByteReader): Diagnosis {
  const num = (): number => r.n();
  const str = (): string => strings[r.u() - 1]!;
  const opt = (): string | undefined => {
    const i = r.u();
    return i === 0 ? undefined : strings[i - 1];
  };
  const list = <T>(item: () => T): T[] => Array.from({ length: r.u() }, item);
  const status = (): Status => {
    const code = str() as Code;
    const plugin = opt();
    const stage = opt() as Stage | undefined;
    return { code, reasons: list(str), ...(plugin !== undefined ? { plugin } : {}), ...(stage !== undefined ? { stage } : {}) };
  };
  const pod = str();
  const profile = str();
  const nodesTotal = num();
  const nodesEvaluated = num();
  const feasibleNodes = num();
  const chosenNode = opt();
  const message = opt();
  const finalStatus = status();
  const rejections = list((): NodeRejection => ({ node: str(), plugin: str(), stage: str() as Stage, code: str() as Code, reasons: list(str) }));
  const filters = list((): FilterRecord => ({ plugin: str(), evaluated: num(), passed: num() }));
  const scores = list(
    (): NodeScoreRecord => ({ node: str(), total: num(), plugins: list((): PluginScore => ({ plugin: str(), raw: num(), normalized: num(), weight: num(), weighted: num() })) }),
  );
  const stages = list((): StageOutcome => {
    const stage = str() as Stage;
    const plugin = str();
    const node = opt();
    return { stage, plugin, ...(node !== undefined ? { node } : {}), status: status() };
  });
  return {
    pod,
    profile,
    nodesTotal,
    nodesEvaluated,
    feasibleNodes,
    status: finalStatus,
    ...(chosenNode !== undefined ? { chosenNode } : {}),
    rejections,
    filters,
    scores,
    stages,
    ...(message !== undefined ? { message } : {}),
  };
}

export interface PackedDiagnoses {
  readonly chunks: readonly Buffer[];
  /** For the i-th diagnosis given, which chunk and which slot in it. */
  readonly places: ReadonlyArray<{ readonly chunk: number; readonly slot: number }>;
}

export function packDiagnoses(diagnoses: readonly Diagnosis[]): PackedDiagnoses {
  const chunks: Buffer[] = [];
  const places: Array<{ chunk: number; slot: number }> = [];
  const writer = new ChunkWriter();
  for (const d of diagnoses) {
    places.push({ chunk: chunks.length, slot: writer.size });
    writer.add(d);
    if (writer.full) chunks.push(writer.seal());
  }
  if (writer.size > 0) chunks.push(writer.seal());
  return { chunks, places };
}

/** A chunk opened: its diagnoses are decoded one by one, on demand. */
export class Chunk {
  private constructor(
    private readonly header: ChunkHeader,
    private readonly body: Uint8Array,
  ) {}

  static open(data: Uint8Array): Chunk {
    const raw = inflateSync(data);
    const headLength = raw.readUInt32BE(0);
    const header = JSON.parse(raw.subarray(4, 4 + headLength).toString('utf8')) as ChunkHeader;
    if (header.format !== CHUNK_FORMAT) throw new Error(`diagnosis chunk format ${header.format} is not known to this Podplan`);
    return new Chunk(header, raw.subarray(4 + headLength));
  }

  diagnosis(slot: number): Diagnosis | undefined {
    const offset = this.header.offsets[slot];
    return offset === undefined ? undefined : decode(this.header.strings, new ByteReader(this.body, offset));
  }
}
