// The view ids of package.json's `contributes.views` (free of `vscode`, so a test can hold them against it).
export const ViewIds = { podSets: 'podplan.podSets', plans: 'podplan.plans', cluster: 'podplan.cluster' } as const;
