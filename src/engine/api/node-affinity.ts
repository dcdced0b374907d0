// Node selection as upstream's component-helpers nodeaffinity: node selector terms (ORed), their
// requirements (ANDed) on labels and on the node name, and a pod's required node affinity (its
// nodeSelector and its required terms together).
import { labelValue } from './labels';
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod } from './types';

export type NodeMatcher = (node: Node) => boolean;

const INTEGER = /^[+-]?\d+$/;

/**
 * Whether a requirement on a label holds for `value` (undefined: the node lacks the label). A
 * malformed requirement (In without values, Gt with a non-integer, …) holds for no node, as
 * upstream drops a term it cannot parse.
 */
export function nodeRequirementMatches(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return values.length > 0 && value !== undefined && values.includes(value);
    case 'NotIn':
      return values.length > 0 && (value === undefined || !values.includes(value));
    case 'Exists':
      return values.length === 0 && value !== undefined;
    case 'DoesNotExist':
      return values.length === 0 && value === undefined;
    case 'Gt':
    case 'Lt': {
      const bound = values[0];
      if (values.length !== 1 || bound === undefined || !INTEGER.test(bound)) return false;
      if (value === undefined || !INTEGER.test(value)) return false;
      return req.operator === 'Gt' ? BigInt(value) > BigInt(bound) : BigInt(value) < BigInt(bound);
    }
    default:
      return false;
  }
}

/** matchFields supports only metadata.name with In/NotIn and exactly one value, as upstream. */
function fieldRequirementMatches(req: NodeSelectorRequirement, node: Node): boolean {
  if (req.key !== 'metadata.name' || (req.operator !== 'In' && req.operator !== 'NotIn') || req.values?.length !== 1) return false;
  return nodeRequirementMatches(req, node.metadata.name);
}

/** A term with neither matchExpressions nor matchFields matches no node. */
export function nodeSelectorTermMatches(term: NodeSelectorTerm, node: Node): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels;
  return expressions.every((req) => nodeRequirementMatches(req, labelValue(labels, req.key))) && fields.every((req) => fieldRequirementMatches(req, node));
}

const requiredByPod = new WeakMap<Pod, NodeMatcher>();

/**
 * The nodes a pod may run on by its spec.nodeSelector and required node affinity (upstream
 * GetRequiredNodeAffinity), built once per pod object.
 */
export function requiredNodeAffinity(pod: Pod): NodeMatcher {
  const cached = requiredByPod.get(pod);
  if (cached) return cached;
  const selector = Object.entries(pod.spec.nodeSelector ?? {});
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const matcher: NodeMatcher = (node) => {
    const labels = node.metadata.labels;
    for (const [key, want] of selector) if (labelValue(labels, key) !== want) return false;
    return terms === undefined || terms.some((term) => nodeSelectorTermMatches(term, node));
  };
  requiredByPod.set(pod, matcher);
  return matcher;
}
