// OpenAPI documents, as far as kubectl reads them: v3 per group-version with one PATCH operation per
// kind carrying `x-kubernetes-group-version-kind` and the `fieldValidation` parameter (so kubectl
// validates on the server, `fieldValidation=Strict`); strategic merge is not advertised, so kubectl
// computes client-side apply patches from its built-in types. v2 is an empty but valid document,
// in JSON or, as older kubectl asks for it, protobuf.
import { apiVersionOf, type ResourceType } from './resources';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export function openApiV2(_types: readonly ResourceType[]): unknown {
  return { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.35.0' }, paths: {}, definitions: {} };
}

/** The same empty v2 document as protobuf (openapi_v2.Document), which kubectl up to 1.2x asks for. */
export function openApiV2Protobuf(): Buffer {
  const field = (no: number, bytes: Buffer): Buffer => Buffer.concat([Buffer.from([(no << 3) | 2, bytes.length]), bytes]);
  const info = Buffer.concat([field(1, Buffer.from('Kubernetes')), field(2, Buffer.from('v1.35.0'))]);
  return Buffer.concat([field(1, Buffer.from('2.0')), field(2, info)]);
}

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

export function openApiV3Index(types: readonly ResourceType[]): unknown {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const t of types) {
    const p = gvPath(t.group, t.version);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${types.length}` };
  }
  return { paths };
}

const PATCH_CONTENT = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

export function openApiV3GroupVersion(types: readonly ResourceType[], group: string, version: string): unknown | undefined {
  const served = types.filter((t) => t.group === group && t.version === version);
  if (served.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const t of served) {
    const gvk = { group: t.group, version: t.version, kind: t.kind };
    const prefix = `/${gvPath(t.group, t.version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}/{name}`;
    const schemaName = `${t.group || 'core'}.${t.version}.${t.kind}`;
    const ref = { $ref: `#/components/schemas/${schemaName}` };
    paths[prefix] = {
      patch: {
        operationId: `patch${t.kind}`,
        parameters: [
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } },
        ],
        requestBody: { content: Object.fromEntries(PATCH_CONTENT.map((c) => [c, { schema: { type: 'object' } }])), required: true },
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': gvk,
      },
    };
    schemas[schemaName] = { type: 'object', 'x-kubernetes-group-version-kind': [gvk], description: `${t.kind} (${apiVersionOf(t)})` };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.35.0' }, paths, components: { schemas } };
}
