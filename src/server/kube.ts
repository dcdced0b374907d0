// What the live source (live-source.ts) uses of the kube layer, loaded on its first use with
// `import()`: the language server starts without @kubernetes/client-node and the rest of src/kube,
// most of its code, which a workspace of files never needs.
export { KubeHttp } from '../kube/http';
export { listContexts, loadKubeconfig, selectContext } from '../kube/kubeconfig';
export { bindEach } from '../kube/binder';
export { bindingPoster, boundNodeReader, planWriter } from '../kube/live/cluster';
export { LIVE_DECISIONS } from '../kube/live/compose';
export { leaseLocation, LiveRun, STOP_DEADLINE_MS } from '../kube/live/lifecycle';
export { ClusterMirror } from '../kube/mirror';
export { PlannerObjects } from '../kube/planner-objects';
