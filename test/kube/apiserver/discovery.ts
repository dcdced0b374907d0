// Discovery documents (legacy, unaggregated: kubectl and client-node fall back to them when the
// answer is plain application/json): /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>.
import type { ResourceType } from './resources';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface GroupVersions {
  name: string;
  versions: string[];
}

/** Named groups and their versions, in the order their first type was registered. */
function groups(types: readonly ResourceType[]): GroupVersions[] {
  const byName = new Map<string, GroupVersions>();
  for (const t of types) {
    if (!t.group) continue;
    let g = byName.get(t.group);
    if (!g) byName.set(t.group, (g = { name: t.group, versions: [] }));
    if (!g.versions.includes(t.version)) g.versions.push(t.version);
  }
  return [...byName.values()];
}

function groupDoc(g: GroupVersions): Record<string, unknown> {
  const versions = g.versions.map((version) => ({ groupVersion: `${g.name}/${version}`, version }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function apiVersions(serverAddress: string): unknown {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function apiGroupList(types: readonly ResourceType[]): unknown {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups(types).map(groupDoc) };
}

export function apiGroup(types: readonly ResourceType[], group: string): unknown | undefined {
  const g = groups(types).find((x) => x.name === group);
  return g && { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) };
}

export function apiResourceList(types: readonly ResourceType[], group: string, version: string): unknown | undefined {
  const served = types.filter((t) => t.group === group && t.version === version);
  if (served.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const t of served) {
    const base = { namespaced: t.namespaced, kind: t.kind };
    const main: Record<string, unknown> = { name: t.plural, singularName: t.singular, ...base, verbs: VERBS };
    if (t.shortNames.length > 0) main.shortNames = t.shortNames;
    if (t.categories.length > 0) main.categories = t.categories;
    resources.push(main);
    if (t.statusSubresource) resources.push({ name: `${t.plural}/status`, singularName: '', ...base, verbs: ['get', 'patch', 'update'] });
    if (t.scaleSubresource) {
      resources.push({
        name: `${t.plural}/scale`,
        singularName: '',
        namespaced: t.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    }
    if (!t.group && t.plural === 'pods')
      resources.push({ name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] });
  }
  if (!group) resources.push({ name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

export function versionInfo(gitVersion: string): unknown {
  const [major = '1', minor = '0'] = gitVersion.replace(/^v/, '').split('.');
  return {
    major,
    minor,
    gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.25.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}
