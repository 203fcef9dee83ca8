/**
 * A minimal OpenAPI v3 surface, just enough for kubectl: `/openapi/v3` lists one document per served
 * group/version, and each document has, for every kind there, a PATCH operation tagged with
 * `x-kubernetes-group-version-kind` that declares the `fieldValidation` query parameter. kubectl reads this
 * to decide that the server validates fields itself (so it does not download OpenAPI v2 schemas for
 * client-side validation). Operations declare no request body, so `kubectl apply` computes strategic merge
 * patches from its compiled-in types (built-in kinds) or sends JSON merge patches (custom resources), as it
 * does against servers without OpenAPI. No schemas are published; `/openapi/v2` is 404.
 */
import type { ResourceRegistry } from './resources.js';
import type { JsonMap } from './types.js';
import { apiVersionOf } from './types.js';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** All served group/versions, core first. */
function groupVersions(registry: ResourceRegistry): Array<[string, string]> {
  const out: Array<[string, string]> = [['', 'v1']];
  for (const [g, vs] of registry.groups()) for (const v of vs) out.push([g, v]);
  return out;
}

function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).toUpperCase().padStart(8, '0');
}

export function openApiV3Root(registry: ResourceRegistry): JsonMap {
  const paths: JsonMap = {};
  for (const [g, v] of groupVersions(registry)) {
    const doc = openApiV3Doc(registry, g, v);
    paths[gvPath(g, v)] = {
      serverRelativeURL: `/openapi/v3/${gvPath(g, v)}?hash=${hash(JSON.stringify(doc))}`,
    };
  }
  return { paths };
}

/** The document for `api/v1` or `apis/<group>/<version>`, or undefined when not served. */
export function openApiV3ForPath(registry: ResourceRegistry, parts: string[]): JsonMap | undefined {
  const [root, a, b] = parts;
  if (root === 'api' && a && !b) return a === 'v1' ? openApiV3Doc(registry, '', a) : undefined;
  if (root === 'apis' && a && b)
    return registry.typesAt(a, b).length ? openApiV3Doc(registry, a, b) : undefined;
  return undefined;
}

function openApiV3Doc(registry: ResourceRegistry, group: string, version: string): JsonMap {
  const paths: JsonMap = {};
  const param = {
    name: 'fieldValidation',
    in: 'query',
    description:
      'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.',
    schema: { type: 'string', uniqueItems: true },
  };
  for (const t of registry.typesAt(group, version)) {
    const base = `/${gvPath(group, version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}/{name}`;
    paths[base] = {
      patch: {
        operationId: `patch${t.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group, version, kind: t.kind },
        parameters: [
          param,
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
        ],
        responses: {},
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0+embedded' },
    paths,
    components: { schemas: {} },
    'x-embedded-api-version': apiVersionOf(group, version),
  };
}
