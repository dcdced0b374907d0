// The language service: plain functions from a document (by URI) and the workspace analysis to LSP
// types, testable in-process. The connection layer (server.ts) only wires them to requests.
export { Analysis, EngineCache, type AnalysisOptions } from './analysis';
export { codeActions } from './code-actions';
export { codeLenses } from './code-lens';
export { CODES, SOURCE, type Code } from './codes';
export { complete } from './complete';
export { hover } from './hover';
export { definition, references } from './navigation';
export {
  clusterSummary,
  explainPodRequest,
  listPods,
  planSize,
  resolvePod,
  previewPlan,
  scheduleNow,
  takesLong,
  workspaceSummary,
  type BoundLater,
  type PlanSize,
  type ProvenBoundView,
} from './requests';
export { symbols } from './symbols';
export { validate } from './validate';
