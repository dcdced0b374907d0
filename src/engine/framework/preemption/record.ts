// What preemption found, kept in the Diagnosis so explain (CLI, language server, webview) can say
// which victims make room on which node and why the other candidate nodes lost, without redoing it.
import { StateKey } from '../cycle-state';

/** A pod preemption would evict. */
export interface VictimRecord {
  /** namespace/name */
  readonly pod: string;
  readonly priority: number;
  /** Whether evicting it breaks a PodDisruptionBudget. */
  readonly violatesPdb: boolean;
}

/** Why a candidate node was not chosen: the first of upstream's criteria (pickOneNodeForPreemption) it lost on. */
export const LOST_ON = [
  'fewer PDB violations',
  'lower highest victim priority',
  'smaller sum of victim priorities',
  'fewer victims',
  'later start of the highest-priority victims',
  'earlier in candidate order',
] as const;
export type LostOn = (typeof LOST_ON)[number];

export interface CandidateRecord {
  readonly node: string;
  /** Highest priority first, as upstream orders them. */
  readonly victims: readonly VictimRecord[];
  readonly pdbViolations: number;
  /** Unset for the chosen node; otherwise the criterion the chosen node beat it on. */
  readonly lostOn?: LostOn;
}

export interface PreemptionRecord {
  /** The node chosen (nominated); unset when preemption cannot help. */
  readonly node?: string;
  readonly candidates: readonly CandidateRecord[];
  /** Nodes tried that offered no candidate, with why (the "preemption: 0/N nodes…" histogram's entries). */
  readonly failures: readonly { readonly node: string; readonly reasons: readonly string[] }[];
  /** Set when the victims were not evicted because the cycle only reports (a plan without preemption). */
  readonly reportOnly?: boolean;
}

/**
 * Whether a cycle may evict: 'evict' (the scheduler) or 'report' (a planning cycle when the profile
 * does not let plans preempt): the candidates are found and said, nothing is nominated.
 */
export type PreemptionMode = 'evict' | 'report';
export const PREEMPTION_MODE = new StateKey<PreemptionMode>('PreemptionMode');
