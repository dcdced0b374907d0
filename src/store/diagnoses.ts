// How diagnoses are kept small. A Diagnosis can list every node of the cluster; a plan of 10,000
// pods on 5,000 nodes must not become 50 million rows. Per pod the store keeps what history views
// read (the reason histogram and the few best scored nodes, as JSON), and the full Diagnosis in
// deflated chunks of many pods, opened only when someone asks for it.
//
// Inside a chunk a diagnosis is a run of varints, every string replaced by its index in the chunk's
// string table: plain JSON of a Diagnosis is mostly repeated keys, plugin names and reasons, which
// cost time to write and to deflate even though deflate then squeezes them out. Format 2 goes one
// step further where the repetition is: a rejection names its (plugin, stage, code, reasons) by an
// index in the chunk's table of rejection kinds, a score record its plugin names by an index in the
// table of score layouts, so a pod that 5,000 nodes rejected for three reasons costs 5,000 node
// names and three kinds. The pass that writes a pod also makes its summary columns.
import { brotliCompressSync, brotliDecompressSync, constants, inflateSync } from 'node:zlib';
import type { Diagnosis, FilterRecord, NodeRejection, NodeScoreRecord, PluginScore, StageOutcome } from '../engine/framework/diagnosis';
import type { PreemptionRecord } from '../engine/framework/preemption/record';
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
 * The reason histogram, from the pod's rejections grouped by their reasons: each rejected node
 * counts once for each of its reasons. A cycle stopped before any node was judged (a PreFilter
 * rejection) counts its reasons for every node, as upstream's message does; one stopped after
 * choosing a node (Reserve, Permit, binding) counts them once.
 */
function reasonHistogram(d: Diagnosis, groups: Iterable<readonly [reasons: readonly string[], nodes: number]>): ReasonCount[] {
  const counts = new Map<string, number>();
  for (const [reasons, nodes] of groups) for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + nodes);
  if (d.rejections.length === 0 && d.status.code !== Code.Success) {
    const n = d.status.stage === 'PreFilter' ? d.nodesTotal : 1;
    for (const reason of d.status.reasons) counts.set(reason, (counts.get(reason) ?? 0) + n);
  }
  const histogram: ReasonCount[] = [];
  for (const [reason, count] of counts) histogram.push({ reason, count });
  return histogram.sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
}

/**
 * The summary columns of a pod's row, JSON that sqlite's json functions read: the histogram, and the
 * top scored nodes. These are written `{"plugins": [names], "nodes": [[node, total, [raw, normalized,
 * weight, weighted] for each plugin]]}`: the framework scores every node of a pod with the same
 * plugins, so their names are written once. Rows written before, and nodes scored by different
 * plugins, have `[{"node", "total", "plugins": {"<plugin>": [raw, normalized, weight, weighted]}}]`.
 */
export interface SummaryColumns {
  readonly reasons: string;
  readonly topScores: string;
}

type Breakdown = [raw: number, normalized: number, weight: number, weighted: number];
type PerNodeScores = Array<{ node: string; total: number; plugins: Record<string, Breakdown> }>;
type SharedPluginScores = { plugins: string[]; nodes: Array<[node: string, total: number, ...scores: Breakdown[]]> };

const pluginScore = (plugin: string, [raw, normalized, weight, weighted]: Breakdown): PluginScore => ({
  plugin,
  raw,
  normalized,
  weight,
  weighted,
});

export function readSummary(columns: SummaryColumns): DiagnosisSummary {
  const scores = JSON.parse(columns.topScores) as PerNodeScores | SharedPluginScores;
  return {
    reasons: JSON.parse(columns.reasons) as ReasonCount[],
    topScores: Array.isArray(scores)
      ? scores.map((n) => ({
          node: n.node,
          total: n.total,
          plugins: Object.entries(n.plugins).map(([plugin, b]) => pluginScore(plugin, b)),
        }))
      : scores.nodes.map(([node, total, ...breakdowns]) => ({
          node,
          total,
          plugins: breakdowns.map((b, i) => pluginScore(scores.plugins[i]!, b)),
        })),
  };
}

// The codec writes every field of these types; a field added to one of them stops the build here
// instead of being dropped from the history without a word.
type Unwritten<T, Written extends keyof T> = Exclude<keyof T, Written>;
const writesAll = <T, Written extends keyof T>(
  ..._: [Unwritten<T, Written>] extends [never] ? [] : [`field not stored: ${Unwritten<T, Written> & string}`]
): void => undefined;
writesAll<
  Diagnosis,
  | 'pod'
  | 'profile'
  | 'nodesTotal'
  | 'nodesEvaluated'
  | 'feasibleNodes'
  | 'status'
  | 'chosenNode'
  | 'rejections'
  | 'filters'
  | 'scores'
  | 'stages'
  | 'message'
  | 'preemption'
>();
writesAll<Status, 'code' | 'reasons' | 'plugin' | 'stage'>();
writesAll<NodeRejection, 'node' | 'plugin' | 'stage' | 'code' | 'reasons'>();
writesAll<FilterRecord, 'plugin' | 'evaluated' | 'passed'>();
writesAll<NodeScoreRecord, 'node' | 'total' | 'plugins'>();
writesAll<PluginScore, 'plugin' | 'raw' | 'normalized' | 'weight' | 'weighted'>();
writesAll<StageOutcome, 'stage' | 'plugin' | 'node' | 'status'>();

/** Bump when the chunk layout changes; a reader refuses layouts it does not know, and reads every earlier one. */
const CHUNK_FORMAT = 2;
/** Body bytes per chunk before it is closed: enough pods that each chunk's string table of node names is paid for rarely, few enough to open one pod in milliseconds. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * Format 2 chunks are brotli at its fastest quality: the string tables and varints already removed
 * most repetition, and it squeezes the rest as well as zlib's fastest level in half the time.
 */
const BROTLI_QUALITY = 0;

/**
 * The bytes of a chunk body. Counts and string references are unsigned varints (a reference is the
 * string's index + 1, 0 when the field is absent); numbers are zigzag varints shifted left by one,
 * or a 1 followed by a float64 for what is not a small integer. The writer puts bytes through these
 * two functions with the position in a local: a 10,000-pod plan is millions of numbers.
 */
function putU(b: Uint8Array, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    b[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  b[at++] = v;
  return at;
}

function putN(b: Uint8Array, at: number, value: number): number {
  if (Number.isInteger(value) && value >= -(2 ** 30) && value < 2 ** 30) return putU(b, at, (((value << 1) ^ (value >> 31)) >>> 0) * 2);
  b[at] = 1;
  new DataView(b.buffer, b.byteOffset).setFloat64(at + 1, value);
  return at + 9;
}

/** Most bytes a varint, a number, a status of `reasons` reasons take. */
const U = 5;
const N = 9;
const statusBytes = (reasons: number): number => 4 * U + reasons * U;

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
  /** Format 2: each rejection kind as string indices [plugin, stage, code, ...reasons]. */
  readonly kinds?: ReadonlyArray<readonly number[]>;
  /** Format 2: each score layout (a score record's plugin names in order) as string indices. */
  readonly layouts?: ReadonlyArray<readonly number[]>;
  /** What preemption weighed, by slot, for the few diagnoses that have it (JSON: rare and small). */
  readonly preemptions?: Readonly<Record<number, PreemptionRecord>>;
}

type RejectionKind = Omit<NodeRejection, 'node'>;

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const sameKind = (k: RejectionKind, r: NodeRejection): boolean =>
  k.plugin === r.plugin && k.stage === r.stage && k.code === r.code && sameStrings(k.reasons, r.reasons);

function sameLayout(names: readonly string[], plugins: readonly PluginScore[]): boolean {
  if (names.length !== plugins.length) return false;
  for (let i = 0; i < names.length; i++) if (plugins[i]!.plugin !== names[i]) return false;
  return true;
}

/** A pod meets few rejection kinds and score layouts: the first ones are compared in place before a key is built. */
const SCAN = 16;

interface Layout {
  readonly names: readonly string[];
  /** The names as a JSON array, for the summary. */
  readonly json: string;
}

/** Writes one chunk at a time, reusing its buffer from chunk to chunk. */
class ChunkWriter {
  private bytes = new Uint8Array(CHUNK_BYTES + 256 * 1024);
  private length = 0;
  private index = new Map<string, number>();
  private strings: string[] = [];
  /** For each string (a rejected node's), the string of the node rejected after it last time, -1 for none. */
  private nextNode: number[] = [];
  private lastNode = -1;
  private offsets: number[] = [];
  private preemptions: Record<number, PreemptionRecord> = {};
  private kinds: RejectionKind[] = [];
  private kindIndex = new Map<string, number>();
  private lastKind = 0;
  /** Per rejection kind, how many nodes of the pod being written it rejected; the kinds it met. */
  private kindNodes: number[] = [];
  private readonly kindsMet: number[] = [];
  private topLayout = -1;
  private layouts: Layout[] = [];
  private layoutIndex = new Map<string, number>();
  private lastLayout = 0;

  constructor(private readonly topScores: number) {}

  get size(): number {
    return this.offsets.length;
  }

  get full(): boolean {
    return this.length >= CHUNK_BYTES;
  }

  /**
   * Writes the diagnosis and returns the pod's summary columns. The sections are methods of their
   * own: one large function leaves the JIT no room to inline the byte writers into its loops.
   */
  add(d: Diagnosis): SummaryColumns {
    let at = this.length;
    if (d.preemption) this.preemptions[this.offsets.length] = d.preemption;
    this.offsets.push(at);
    const b = this.room(at, 2 * U + 3 * N + 2 * U + statusBytes(d.status.reasons.length) + U);
    at = putU(b, at, this.ref(d.pod));
    at = putU(b, at, this.ref(d.profile));
    at = putN(b, at, d.nodesTotal);
    at = putN(b, at, d.nodesEvaluated);
    at = putN(b, at, d.feasibleNodes);
    at = putU(b, at, this.optRef(d.chosenNode));
    at = putU(b, at, this.optRef(d.message));
    at = this.putStatus(b, at, d.status);
    at = this.putRejections(d.rejections, at);
    at = this.putFilters(d.filters, at);
    const top = Math.min(d.scores.length, this.topScores);
    at = this.putScores(d.scores, top, at);
    this.length = this.putStages(d.stages, at);

    const groups = this.kindsMet.map((k) => {
      const nodes = this.kindNodes[k]!;
      this.kindNodes[k] = 0;
      return [this.kinds[k]!.reasons, nodes] as const;
    });
    this.kindsMet.length = 0;
    return { reasons: JSON.stringify(reasonHistogram(d, groups)), topScores: this.topScoresJson(d.scores.slice(0, top), this.topLayout) };
  }

  /** Also counts the nodes of each kind, and lists in kindsMet the kinds met, for the histogram. */
  private putRejections(rejections: readonly NodeRejection[], start: number): number {
    const b = this.room(start, U + rejections.length * 2 * U);
    let at = putU(b, start, rejections.length);
    for (const r of rejections) {
      at = putU(b, at, this.rejectedNode(r.node));
      const k = this.kind(r);
      at = putU(b, at, k);
      const seen = this.kindNodes[k]!;
      if (seen === 0) this.kindsMet.push(k);
      this.kindNodes[k] = seen + 1;
    }
    return at;
  }

  private putFilters(filters: readonly FilterRecord[], start: number): number {
    const b = this.room(start, U + filters.length * (U + 2 * N));
    let at = putU(b, start, filters.length);
    for (const f of filters) {
      at = putU(b, at, this.ref(f.plugin));
      at = putN(b, at, f.evaluated);
      at = putN(b, at, f.passed);
    }
    return at;
  }

  /** Also sets topLayout: the layout the first `top` records share, -1 when they do not. */
  private putScores(scores: readonly NodeScoreRecord[], top: number, start: number): number {
    let bytes = U;
    for (const n of scores) bytes += 2 * U + N + n.plugins.length * 4 * N;
    const b = this.room(start, bytes);
    let at = putU(b, start, scores.length);
    this.topLayout = -1;
    for (let i = 0; i < scores.length; i++) {
      const n = scores[i]!;
      at = putU(b, at, this.ref(n.node));
      at = putN(b, at, n.total);
      const l = this.layout(n.plugins);
      at = putU(b, at, l);
      for (const p of n.plugins) {
        at = putN(b, at, p.raw);
        at = putN(b, at, p.normalized);
        at = putN(b, at, p.weight);
        at = putN(b, at, p.weighted);
      }
      if (i < top) this.topLayout = i === 0 || l === this.topLayout ? l : -1;
    }
    return at;
  }

  private putStages(stages: readonly StageOutcome[], start: number): number {
    let at = putU(this.room(start, U), start, stages.length);
    for (const g of stages) {
      const b = this.room(at, 3 * U + statusBytes(g.status.reasons.length));
      at = putU(b, at, this.ref(g.stage));
      at = putU(b, at, this.ref(g.plugin));
      at = putU(b, at, this.optRef(g.node));
      at = this.putStatus(b, at, g.status);
    }
    return at;
  }

  /** The top records as summary JSON; `layout` is the plugin layout they share, -1 when they do not. */
  private topScoresJson(top: readonly NodeScoreRecord[], layout: number): string {
    if (top.length === 0) return '[]';
    if (layout < 0) {
      const perNode: PerNodeScores = top.map((n) => ({
        node: n.node,
        total: n.total,
        plugins: Object.fromEntries(n.plugins.map((p) => [p.plugin, [p.raw, p.normalized, p.weight, p.weighted]])),
      }));
      return JSON.stringify(perNode);
    }
    const nodes = top.map((n) => [n.node, n.total, ...n.plugins.map((p): Breakdown => [p.raw, p.normalized, p.weight, p.weighted])]);
    // One JSON.stringify of small arrays: a string built piece by piece stays a tree of small strings
    // that every garbage collection until the insert copies, per pod of a 10,000-pod plan.
    return `{"plugins":${this.layouts[layout]!.json},"nodes":${JSON.stringify(nodes)}}`;
  }

  /** The buffer, grown if `bytes` more would not fit after `at`. */
  private room(at: number, bytes: number): Uint8Array {
    if (at + bytes > this.bytes.length) {
      const bigger = new Uint8Array(Math.max(this.bytes.length * 2, at + bytes));
      bigger.set(this.bytes.subarray(0, at));
      this.bytes = bigger;
    }
    return this.bytes;
  }

  private putStatus(b: Uint8Array, start: number, st: Status): number {
    let at = putU(b, start, this.ref(st.code));
    at = putU(b, at, this.optRef(st.plugin));
    at = putU(b, at, this.optRef(st.stage));
    at = putU(b, at, st.reasons.length);
    for (const r of st.reasons) at = putU(b, at, this.ref(r));
    return at;
  }

  /**
   * A rejected node's reference. A cycle meets the nodes in the snapshot's order, from a rotating
   * start, so the node rejected after another is most often the one that followed it last time: a
   * check of that guess spares most table lookups of a pod that every node rejected.
   */
  private rejectedNode(node: string): number {
    const guess = this.lastNode < 0 ? -1 : this.nextNode[this.lastNode]!;
    const i = guess >= 0 && this.strings[guess] === node ? guess : this.intern(node);
    if (this.lastNode >= 0) this.nextNode[this.lastNode] = i;
    this.lastNode = i;
    return i + 1;
  }

  private kind(r: NodeRejection): number {
    const last = this.kinds[this.lastKind];
    if (last !== undefined && sameKind(last, r)) return this.lastKind;
    const scan = Math.min(this.kinds.length, SCAN);
    for (let i = 0; i < scan; i++) if (sameKind(this.kinds[i]!, r)) return (this.lastKind = i);
    const key = [r.plugin, r.stage, r.code, ...r.reasons].join('\u0000');
    let i = this.kindIndex.get(key);
    if (i === undefined) {
      i = this.kinds.length;
      this.kinds.push({ plugin: r.plugin, stage: r.stage, code: r.code, reasons: r.reasons });
      this.kindNodes.push(0);
      this.kindIndex.set(key, i);
    }
    return (this.lastKind = i);
  }

  private layout(plugins: readonly PluginScore[]): number {
    const last = this.layouts[this.lastLayout];
    if (last !== undefined && sameLayout(last.names, plugins)) return this.lastLayout;
    const scan = Math.min(this.layouts.length, SCAN);
    for (let i = 0; i < scan; i++) if (sameLayout(this.layouts[i]!.names, plugins)) return (this.lastLayout = i);
    const names = plugins.map((p) => p.plugin);
    const key = names.join('\u0000');
    let i = this.layoutIndex.get(key);
    if (i === undefined) {
      i = this.layouts.length;
      this.layouts.push({ names, json: JSON.stringify(names) });
      this.layoutIndex.set(key, i);
    }
    return (this.lastLayout = i);
  }

  private intern(text: string): number {
    let i = this.index.get(text);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(text);
      this.nextNode.push(-1);
      this.index.set(text, i);
    }
    return i;
  }

  private ref(text: string): number {
    return this.intern(text) + 1;
  }

  private optRef(text: string | undefined): number {
    return text === undefined ? 0 : this.intern(text) + 1;
  }

  /**
   * Format 2: [format byte][brotli of: body, header JSON, header length as u32]. The header goes
   * after the body so the chunk is compressed from the writer's buffer as it is, without a copy.
   * (Format 1 was zlib of [header length][header JSON][body]; a zlib stream starts with a byte whose
   * low four bits are 8, which no format byte has.)
   */
  seal(): Buffer {
    const header: ChunkHeader = {
      format: CHUNK_FORMAT,
      strings: this.strings,
      offsets: this.offsets,
      kinds: this.kinds.map((k) => [k.plugin, k.stage, k.code, ...k.reasons].map((t) => this.intern(t))),
      layouts: this.layouts.map((l) => l.names.map((t) => this.intern(t))),
      ...(Object.keys(this.preemptions).length > 0 ? { preemptions: this.preemptions } : {}),
    };
    const head = Buffer.from(JSON.stringify(header), 'utf8');
    const b = this.room(this.length, head.length + 4);
    b.set(head, this.length);
    new DataView(b.buffer, b.byteOffset).setUint32(this.length + head.length, head.length);
    const raw = b.subarray(0, this.length + head.length + 4);
    const compressed = brotliCompressSync(raw, {
      params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
    });
    const sealed = Buffer.concat([Buffer.of(CHUNK_FORMAT), compressed]);
    this.length = 0;
    this.index = new Map();
    this.strings = [];
    this.nextNode = [];
    this.lastNode = -1;
    this.offsets = [];
    this.preemptions = {};
    this.kinds = [];
    this.kindIndex = new Map();
    this.lastKind = 0;
    this.kindNodes = [];
    this.layouts = [];
    this.layoutIndex = new Map();
    this.lastLayout = 0;
    return sealed;
  }
}

/** A chunk's string table with its kinds and layouts (format 2) resolved once. */
interface Tables {
  readonly format: number;
  readonly strings: readonly string[];
  readonly kinds: readonly RejectionKind[];
  readonly layouts: ReadonlyArray<readonly string[]>;
  readonly preemptions: Readonly<Record<number, PreemptionRecord>>;
}

function decode(t: Tables, r: ByteReader): Diagnosis {
  const { strings } = t;
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
  const scored = (plugin: string): PluginScore => pluginScore(plugin, [num(), num(), num(), num()]);
  const pod = str();
  const profile = str();
  const nodesTotal = num();
  const nodesEvaluated = num();
  const feasibleNodes = num();
  const chosenNode = opt();
  const message = opt();
  const finalStatus = status();
  const rejections =
    t.format === 1
      ? list((): NodeRejection => ({ node: str(), plugin: str(), stage: str() as Stage, code: str() as Code, reasons: list(str) }))
      : list((): NodeRejection => ({ node: str(), ...t.kinds[r.u()]! }));
  const filters = list((): FilterRecord => ({ plugin: str(), evaluated: num(), passed: num() }));
  const scores =
    t.format === 1
      ? list((): NodeScoreRecord => ({ node: str(), total: num(), plugins: list(() => scored(str())) }))
      : list((): NodeScoreRecord => ({ node: str(), total: num(), plugins: t.layouts[r.u()]!.map(scored) }));
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
  /** For the i-th diagnosis given, its summary columns with the `topScores` best scored nodes. */
  readonly summaries: readonly SummaryColumns[];
}

export function packDiagnoses(diagnoses: readonly Diagnosis[], topScores: number): PackedDiagnoses {
  const chunks: Buffer[] = [];
  const places: Array<{ chunk: number; slot: number }> = [];
  const summaries: SummaryColumns[] = [];
  const writer = new ChunkWriter(topScores);
  for (const d of diagnoses) {
    places.push({ chunk: chunks.length, slot: writer.size });
    summaries.push(writer.add(d));
    if (writer.full) chunks.push(writer.seal());
  }
  if (writer.size > 0) chunks.push(writer.seal());
  return { chunks, places, summaries };
}

/** A chunk opened: its diagnoses are decoded one by one, on demand. */
export class Chunk {
  private constructor(
    private readonly tables: Tables,
    private readonly offsets: readonly number[],
    private readonly body: Uint8Array,
  ) {}

  static open(data: Uint8Array): Chunk {
    const first = data[0] ?? 0;
    let header: ChunkHeader;
    let body: Uint8Array;
    if ((first & 0x0f) === 8) {
      const raw = inflateSync(data);
      const headLength = raw.readUInt32BE(0);
      header = JSON.parse(raw.subarray(4, 4 + headLength).toString('utf8')) as ChunkHeader;
      body = raw.subarray(4 + headLength);
    } else if (first === CHUNK_FORMAT) {
      const raw = brotliDecompressSync(data.subarray(1));
      const headLength = raw.readUInt32BE(raw.length - 4);
      const bodyLength = raw.length - 4 - headLength;
      header = JSON.parse(raw.subarray(bodyLength, bodyLength + headLength).toString('utf8')) as ChunkHeader;
      body = raw.subarray(0, bodyLength);
    } else {
      throw new Error(`diagnosis chunk format ${first} is not known to this Podplan`);
    }
    if (header.format !== 1 && header.format !== CHUNK_FORMAT)
      throw new Error(`diagnosis chunk format ${header.format} is not known to this Podplan`);
    const { strings } = header;
    const str = (i: number): string => strings[i]!;
    const kinds = (header.kinds ?? []).map(([plugin, stage, code, ...reasons]): RejectionKind => ({
      plugin: str(plugin!),
      stage: str(stage!) as Stage,
      code: str(code!) as Code,
      reasons: reasons.map(str),
    }));
    const layouts = (header.layouts ?? []).map((refs) => refs.map(str));
    return new Chunk({ format: header.format, strings, kinds, layouts, preemptions: header.preemptions ?? {} }, header.offsets, body);
  }

  diagnosis(slot: number): Diagnosis | undefined {
    const offset = this.offsets[slot];
    if (offset === undefined) return undefined;
    const diagnosis = decode(this.tables, new ByteReader(this.body, offset));
    const preemption = this.tables.preemptions[slot];
    return preemption ? { ...diagnosis, preemption } : diagnosis;
  }
}
