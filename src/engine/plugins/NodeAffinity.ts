// NodeAffinity: Filter keeps a pod on nodes matching its nodeSelector and required node affinity (and
// the profile's addedAffinity); PreFilter narrows the candidates to the node names a required term
// pins with matchFields metadata.name; Score sums the weights of the preferred terms a node matches,
// normalized so the best node scores 100.
import {
  NODE_NAME_FIELD,
  NodeSelectorMatcher,
  PreferredTerms,
  requiredNodeAffinity,
  type RequiredNodeAffinity,
} from '../api/node-affinity';
import { aggregate, fieldErrorText, type ArgsError, type FieldPath } from '../api/field';
import { err, ok, type Result } from '../api/result';
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import type { CycleState } from '../framework/cycle-state';
import {
  MAX_NODE_SCORE,
  type FilterPlugin,
  type NodeScore,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type ScorePlugin,
} from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { errorStatus, SKIP, SUCCESS, unresolvable, type Status } from '../framework/status';
import { ArgsReader, factoryOf } from './args';
import { CycleValue } from './cycle-value';
import { keyPerPod } from '../framework/caches';
import { Names } from './names';
import { defaultNormalizeScore } from './normalize';

export const NAME = Names.NodeAffinity;

export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";
export const ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity";
export const ERR_REASON_CONFLICT = 'pod affinity terms conflict';

/** The plugin's args (upstream NodeAffinityArgs) checked and compiled: its addedAffinity, which every pod of the profile must (required) or should (preferred) satisfy too. */
export interface NodeAffinityArgs {
  readonly addedRequired: NodeSelectorMatcher | undefined;
  readonly addedPreferred: PreferredTerms | undefined;
}

const POD_MISMATCH: Status = Object.freeze(unresolvable(ERR_REASON_POD));
const ENFORCED_MISMATCH: Status = Object.freeze(unresolvable(ERR_REASON_ENFORCED));
const PREFERRED_PATH = ['spec', 'affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution'];

export class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;
  /** What Filter and Score read of the pod (the addedAffinity is the plugin's own, the same for every pod). */
  private readonly requiredKey = keyPerPod((pod) => [
    pod.spec.nodeSelector ?? null,
    pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? null,
  ]);
  private readonly preferredKey = keyPerPod(
    (pod) => pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? null,
  );
  private readonly preFilterState = new CycleValue<RequiredNodeAffinity>(`PreFilter${NAME}`);
  private readonly preScoreState = new CycleValue<{ readonly preferred: PreferredTerms | undefined }>(`PreScore${NAME}`);

  private readonly addedRequired: NodeSelectorMatcher | undefined;
  private readonly addedPreferred: PreferredTerms | undefined;

  constructor(args: NodeAffinityArgs) {
    this.addedRequired = args.addedRequired;
    this.addedPreferred = args.addedPreferred;
  }

  /** upstream EventsToRegister: a node added or its labels changed. */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      {
        event: clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeLabel),
        hint: (pod, o, n) => this.isSchedulableAfterNodeChange(pod, o, n),
      },
    ];
  }

  /**
   * upstream isSchedulableAfterNodeChange: the node (matching the profile's addedAffinity) matches
   * the pod's required affinity and selector now, and, for an update, did not before.
   */
  isSchedulableAfterNodeChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const [original, modified] = [oldObj as Node | undefined, newObj as Node];
    if (this.addedRequired && !this.addedRequired.matches(modified)) return 'QueueSkip';
    const required = requiredNodeAffinity(pod);
    if (!required.matches(modified)) return 'QueueSkip';
    if (!original) return 'Queue';
    return required.matches(original) ? 'QueueSkip' : 'Queue';
  }

  preFilter(state: CycleState, pod: PodInfo): { status: Status; result?: PreFilterResult } {
    const spec = pod.pod.spec;
    const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (!required && !this.addedRequired && !spec.nodeSelector) return { status: SKIP };
    this.preFilterState.write(state, requiredNodeAffinity(pod.pod));
    if (!required) return { status: SUCCESS };
    const nodeNames = pinnedNodeNames(required.nodeSelectorTerms);
    if (nodeNames === undefined) return { status: SUCCESS };
    if (nodeNames.size === 0) return { status: unresolvable(ERR_REASON_CONFLICT) };
    return { status: SUCCESS, result: { nodeNames } };
  }

  filter(state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    if (this.addedRequired && !this.addedRequired.matches(node.node)) return ENFORCED_MISMATCH;
    const required = this.preFilterState.read(state) ?? requiredNodeAffinity(pod.pod);
    return required.matches(node.node) ? SUCCESS : POD_MISMATCH;
  }

  filterKey(_state: CycleState, pod: PodInfo): string {
    return this.requiredKey(pod.pod);
  }

  preScore(state: CycleState, pod: PodInfo): Status {
    const preferred = podPreferredTerms(pod);
    if (!preferred.ok) return errorStatus(preferred.error);
    if (!preferred.value && !this.addedPreferred) return SKIP;
    this.preScoreState.write(state, { preferred: preferred.value });
    return SUCCESS;
  }

  score(state: CycleState, pod: PodInfo, node: NodeInfo): number | Status {
    let saved = this.preScoreState.read(state);
    if (!saved) {
      // PreScore did not run (a caller scoring directly): compile here.
      const computed = podPreferredTerms(pod);
      if (!computed.ok) return errorStatus(computed.error);
      saved = { preferred: computed.value };
    }
    return (this.addedPreferred?.score(node.node) ?? 0) + (saved.preferred?.score(node.node) ?? 0);
  }

  scoreKey(_state: CycleState, pod: PodInfo): string {
    return this.preferredKey(pod.pod);
  }

  normalizeScore(_state: CycleState, _pod: PodInfo, scores: NodeScore[]): Status {
    defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
    return SUCCESS;
  }
}

/**
 * The node names the required terms allow when every term pins names with matchFields metadata.name
 * In (requirements of a term are ANDed, terms ORed); undefined when some term leaves all nodes open.
 */
function pinnedNodeNames(terms: readonly NodeSelectorTerm[]): Set<string> | undefined {
  if (terms.length === 0) return undefined;
  const union = new Set<string>();
  for (const term of terms) {
    let names: Set<string> | undefined;
    for (const r of term.matchFields ?? []) {
      if (r.key !== NODE_NAME_FIELD || r.operator !== 'In') continue;
      const values = new Set(r.values ?? []);
      names = names ? new Set([...names].filter((n) => values.has(n))) : values;
    }
    if (!names) return undefined;
    for (const n of names) union.add(n);
  }
  return union;
}

/** The pod's preferred terms; undefined when it has none. */
function podPreferredTerms(pod: PodInfo): Result<PreferredTerms | undefined> {
  const terms = pod.pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
  if (!terms) return ok(undefined);
  const compiled = PreferredTerms.compile(terms, PREFERRED_PATH);
  return compiled.ok ? compiled : err(aggregate(compiled.error.map(fieldErrorText)));
}

const ADDED = 'addedAffinity';
const ADDED_REQUIRED = [ADDED, 'requiredDuringSchedulingIgnoredDuringExecution'];
const ADDED_PREFERRED = [ADDED, 'preferredDuringSchedulingIgnoredDuringExecution'];

/** Checks the addedAffinity shape and compiles it; any malformed term is an error. */
export function parseArgs(args: unknown): Result<NodeAffinityArgs, ArgsError> {
  const reader = new ArgsReader(NAME);
  const root = reader.object(args, [], [ADDED]);
  const added = reader.object(
    root?.[ADDED],
    [ADDED],
    ['requiredDuringSchedulingIgnoredDuringExecution', 'preferredDuringSchedulingIgnoredDuringExecution'],
  );
  let required: NodeSelectorMatcher | undefined;
  const selector = reader.object(added?.['requiredDuringSchedulingIgnoredDuringExecution'], ADDED_REQUIRED, ['nodeSelectorTerms']);
  if (selector) {
    const path = [...ADDED_REQUIRED, 'nodeSelectorTerms'];
    const terms = (reader.list(selector['nodeSelectorTerms'], path) ?? []).map((t, i) => readTerm(reader, t, [...path, i]));
    const compiled = NodeSelectorMatcher.compile({ nodeSelectorTerms: terms }, ADDED_REQUIRED);
    reader.errors.push(...compiled.errors);
    required = compiled.matcher;
  }
  let preferred: PreferredTerms | undefined;
  const preferredList = reader.list(added?.['preferredDuringSchedulingIgnoredDuringExecution'], ADDED_PREFERRED);
  if (preferredList?.length) {
    const terms = preferredList.map((p, i): PreferredSchedulingTerm => {
      const path = [...ADDED_PREFERRED, i];
      const entry = reader.object(p, path, ['weight', 'preference']);
      return {
        weight: reader.int(entry?.['weight'], [...path, 'weight']) ?? 0,
        preference: readTerm(reader, entry?.['preference'], [...path, 'preference']),
      };
    });
    const compiled = PreferredTerms.compile(terms, ADDED_PREFERRED);
    if (compiled.ok) preferred = compiled.value;
    else reader.errors.push(...compiled.error);
  }
  return reader.result<NodeAffinityArgs>({ addedRequired: required, addedPreferred: preferred });
}

export const factory = factoryOf(parseArgs, (args) => new NodeAffinity(args));

/** A node selector term with its shape checked (keys, operators and values are checked when compiled). */
function readTerm(reader: ArgsReader, value: unknown, path: FieldPath): NodeSelectorTerm {
  const term = reader.object(value, path, ['matchExpressions', 'matchFields']);
  const requirements = (field: string) =>
    (reader.list(term?.[field], [...path, field]) ?? []).map((r, j): NodeSelectorRequirement => {
      const reqPath = [...path, field, j];
      const req = reader.object(r, reqPath, ['key', 'operator', 'values']);
      return {
        key: reader.string(req?.['key'], [...reqPath, 'key']) ?? '',
        operator: (reader.string(req?.['operator'], [...reqPath, 'operator']) ?? '') as NodeSelectorRequirement['operator'],
        values: reader.strings(req?.['values'], [...reqPath, 'values']),
      };
    });
  return { matchExpressions: requirements('matchExpressions'), matchFields: requirements('matchFields') };
}
