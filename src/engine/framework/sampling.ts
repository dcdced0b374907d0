// Which nodes a cycle evaluates. Like upstream, a cycle stops filtering once it has found enough
// feasible nodes (numFeasibleNodesToFind) and starts where the previous cycle stopped, so every node
// gets its turn; Podplan adds a fixed share in basis points and a random starting point.
import type { Random } from '../api/random';
import { MAX_BASIS_POINTS, type FrameworkSettings } from './profile';

/** Below this many nodes every node is evaluated, and adaptive sampling never looks for fewer. */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** The adaptive percentage never drops below this. */
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

type SamplingSettings = Pick<FrameworkSettings, 'strategy' | 'basisPoints' | 'percentageOfNodesToScore' | 'order'>;

/**
 * How many feasible nodes to find among `numNodes` before scoring (upstream numFeasibleNodesToFind):
 * adaptive takes percentageOfNodesToScore, or when 0, 50% less 1% per 125 nodes but at least 5%, and
 * never fewer than 100 nodes; fixed takes `basisPoints`/10000 of the nodes, at least one.
 */
export function numFeasibleNodesToFind(settings: SamplingSettings, numNodes: number): number {
  if (settings.strategy === 'fixed') {
    return Math.min(numNodes, Math.max(1, Math.ceil((numNodes * settings.basisPoints) / MAX_BASIS_POINTS)));
  }
  if (numNodes < MIN_FEASIBLE_NODES_TO_FIND) return numNodes;
  let percentage = settings.percentageOfNodesToScore;
  if (percentage === 0) percentage = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND, 50 - Math.trunc(numNodes / 125));
  return Math.max(MIN_FEASIBLE_NODES_TO_FIND, Math.trunc((numNodes * percentage) / 100));
}

/**
 * The starting point of each cycle. Round robin keeps upstream's nextStartNodeIndex: the next cycle
 * starts right after the nodes this one processed. Cycles run one at a time (scheduleOne is
 * synchronous), so the cursor needs no further guarding.
 */
export class NodeSampler {
  private nextStartNodeIndex = 0;

  constructor(
    private readonly settings: SamplingSettings,
    private readonly random: Random,
  ) {}

  count(numNodes: number): number {
    return numFeasibleNodesToFind(this.settings, numNodes);
  }

  /** Where in a list of `numNodes` candidate nodes this cycle starts. */
  start(numNodes: number): number {
    if (numNodes === 0) return 0;
    return this.settings.order === 'random' ? this.random.int(numNodes) : this.nextStartNodeIndex % numNodes;
  }

  /** After a cycle that processed `processed` nodes out of the snapshot's `allNodes`. */
  advance(processed: number, allNodes: number): void {
    if (this.settings.order === 'roundRobin' && allNodes > 0) this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % allNodes;
  }
}
