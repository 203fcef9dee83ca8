// Over 400 lines: one table-like mapping, mirroring k8s.io/apiserver installer.go registerResourceHandlers route by route.
/**
 * The operations of the served resources, as kube-apiserver publishes them in its OpenAPI `paths`
 * (k8s.io/apiserver pkg/endpoints/installer.go `registerResourceHandlers`: one route per verb the storage
 * supports, each tagged `x-kubernetes-action` and `x-kubernetes-group-version-kind`; operation ids and tags
 * as kube-openapi names them: `patchAppsV1NamespacedDeployment`, `apps_v1`). Generated from the registry
 * (its verbs, scope, status and scale subresources), never written per kind, and rendered by openapi.ts
 * as Swagger 2.0 (`/openapi/v2`, JSON and protobuf) and OpenAPI 3.0 (`/openapi/v3/...`).
 *
 * Clients read these: kubectl <= 1.21's dry-run check (`kubectl diff`, `apply --dry-run=server`) looks for
 * the PATCH operation carrying the kind's GVK and a `dryRun` query parameter; kubectl >= 1.27 checks the
 * v3 PATCH operation for `fieldValidation`.
 */
import type { SchemaCatalog } from '../schema/index.js';
import type { ResourceRegistry } from './resources.js';
import type { ResourceType } from './types.js';
import { hasScale, hasStatus } from './types.js';

export interface ApiParameter {
  name: string;
  in: 'path' | 'query' | 'body';
  description: string;
  required?: boolean;
  /** Query and path parameters: the value's type. */
  type?: 'string' | 'integer' | 'boolean';
  /** Body parameters: the definition name of the body. */
  schema?: string;
}

export interface ApiOperation {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  operationId: string;
  description: string;
  action: string;
  gvk: { group: string; kind: string; version: string };
  tag: string;
  consumes: string[];
  produces: string[];
  parameters: ApiParameter[];
  /** Status code, description and the definition name of the response body (if any). */
  responses: Array<{ code: string; description: string; schema?: string }>;
}

export interface ApiPath {
  path: string;
  group: string;
  version: string;
  /** Parameters shared by the path's operations (name, namespace, pretty). */
  parameters: ApiParameter[];
  operations: ApiOperation[];
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const STATUS_DEFINITION = `${META}.Status`;
export const WATCH_EVENT_DEFINITION = `${META}.WatchEvent`;
export const DELETE_OPTIONS_DEFINITION = `${META}.DeleteOptions`;
export const PATCH_DEFINITION = `${META}.Patch`;
export const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';

const q = (name: string, description: string, type: ApiParameter['type'] = 'string'): ApiParameter => ({
  name,
  in: 'query',
  description,
  type,
});

const PRETTY = q('pretty', "If 'true', then the output is pretty printed.");
const DRY_RUN = q(
  'dryRun',
  'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed',
);
const FIELD_MANAGER = q(
  'fieldManager',
  'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.',
);
const FIELD_VALIDATION = q(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: Ignore, Warn (default), Strict.',
);
const FORCE = q(
  'force',
  'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.',
  'boolean',
);
const LIST_QUERY: ApiParameter[] = [
  q('allowWatchBookmarks', 'allowWatchBookmarks requests watch events with type "BOOKMARK".', 'boolean'),
  q('continue', 'The continue option should be set when retrieving more results from the server.'),
  q('fieldSelector', 'A selector to restrict the list of returned objects by their fields.'),
  q('labelSelector', 'A selector to restrict the list of returned objects by their labels.'),
  q('limit', 'limit is a maximum number of responses to return for a list call.', 'integer'),
  q(
    'resourceVersion',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  q('resourceVersionMatch', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  q('sendInitialEvents', 'sendInitialEvents=true may be set together with watch=true.', 'boolean'),
  q('timeoutSeconds', 'Timeout for the list/watch call.', 'integer'),
  q(
    'watch',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
    'boolean',
  ),
];
const DELETE_QUERY: ApiParameter[] = [
  DRY_RUN,
  q('gracePeriodSeconds', 'The duration in seconds before the object should be deleted.', 'integer'),
  q('orphanDependents', 'Deprecated: please use the PropagationPolicy.', 'boolean'),
  q(
    'propagationPolicy',
    "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'.",
  ),
];

const body = (schema: string, required = true): ApiParameter => ({
  name: 'body',
  in: 'body',
  description: '',
  required,
  schema,
});

/** kube-openapi's operation id part for a group/version: `Core`, `Apps`, `RbacAuthorization`, `ExampleCom` + `V1`. */
function groupVersionName(group: string, version: string): string {
  const g = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  const words = `${g}.${version}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function tagOf(group: string, version: string): string {
  const name = groupVersionName(group, '');
  return `${name[0]!.toLowerCase()}${name.slice(1)}_${version}`;
}

const JSON_YAML = ['application/json', 'application/yaml'];

/** The path items of one resource type at one served version. */
function pathsOf(t: ResourceType, version: string, schemas: SchemaCatalog): ApiPath[] {
  const { group, kind } = t;
  const root = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const gv = groupVersionName(group, version);
  const ns = t.namespaced ? 'Namespaced' : '';
  const gvk = { group, kind, version };
  const tag = tagOf(group, version);
  const objectDef = schemas.definitionNameFor(gvk);
  const listDef = schemas.definitionNameFor({ group, version, kind: t.listKind });
  const builtin = !t.crd;
  const produces = builtin ? [...JSON_YAML, 'application/vnd.kubernetes.protobuf'] : JSON_YAML;
  const streams = builtin
    ? [...produces, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch']
    : [...produces, 'application/json;stream=watch'];
  const patchTypes = [
    'application/json-patch+json',
    'application/merge-patch+json',
    ...(t.strategicMerge ? ['application/strategic-merge-patch+json'] : []),
    'application/apply-patch+yaml',
  ];
  const can = (verb: string): boolean => t.verbs.includes(verb);
  const unauthorized = { code: '401', description: 'Unauthorized' };
  const op = (
    method: ApiOperation['method'],
    operationId: string,
    action: string,
    description: string,
    parameters: ApiParameter[],
    responses: ApiOperation['responses'],
    extra: Partial<Pick<ApiOperation, 'consumes' | 'produces' | 'gvk'>> = {},
  ): ApiOperation => ({
    method,
    operationId,
    description,
    action,
    gvk: extra.gvk ?? gvk,
    tag,
    consumes: extra.consumes ?? ['*/*'],
    produces: extra.produces ?? produces,
    parameters,
    responses: [...responses, unauthorized],
  });
  const ok = (schema: string | undefined, code = '200', description = 'OK') => ({
    code,
    description,
    ...(schema ? { schema } : {}),
  });
  const writes = (schema: string | undefined, created: boolean) => [
    ok(schema),
    ok(schema, '201', 'Created'),
    ...(created ? [ok(schema, '202', 'Accepted')] : []),
  ];
  const namePath: ApiParameter = {
    name: 'name',
    in: 'path',
    description: `name of the ${kind}`,
    required: true,
    type: 'string',
  };
  const nsPath: ApiParameter = {
    name: 'namespace',
    in: 'path',
    description: 'object name and auth scope, such as for teams and projects',
    required: true,
    type: 'string',
  };
  const scope = t.namespaced ? `/namespaces/{namespace}` : '';
  const scopeParams = t.namespaced ? [nsPath] : [];
  const out: ApiPath[] = [];
  const add = (path: string, parameters: ApiParameter[], operations: ApiOperation[]): void => {
    if (operations.length) out.push({ path, group, version, parameters, operations });
  };

  // Collection: list, create, deletecollection.
  add(
    `${root}${scope}/${t.plural}`,
    [...scopeParams, PRETTY],
    [
      ...(can('list')
        ? [
            op(
              'get',
              `list${gv}${ns}${kind}`,
              'list',
              `list or watch objects of kind ${kind}`,
              LIST_QUERY,
              [ok(listDef)],
              { produces: streams },
            ),
          ]
        : []),
      ...(can('create')
        ? [
            op(
              'post',
              `create${gv}${ns}${kind}`,
              'post',
              `create a ${kind}`,
              [body(objectDef ?? ''), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
              writes(objectDef, true),
            ),
          ]
        : []),
      ...(can('deletecollection')
        ? [
            op(
              'delete',
              `delete${gv}Collection${ns}${kind}`,
              'deletecollection',
              `delete collection of ${kind}`,
              [
                body(DELETE_OPTIONS_DEFINITION, false),
                ...LIST_QUERY.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks'),
                ...DELETE_QUERY,
              ],
              [ok(STATUS_DEFINITION)],
            ),
          ]
        : []),
    ],
  );
  // One object: read, replace, delete, patch.
  const item = `${root}${scope}/${t.plural}/{name}`;
  add(
    item,
    [namePath, ...scopeParams, PRETTY],
    [
      ...(can('get')
        ? [op('get', `read${gv}${ns}${kind}`, 'get', `read the specified ${kind}`, [], [ok(objectDef)])]
        : []),
      ...(can('update')
        ? [
            op(
              'put',
              `replace${gv}${ns}${kind}`,
              'put',
              `replace the specified ${kind}`,
              [body(objectDef ?? ''), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
              writes(objectDef, false),
            ),
          ]
        : []),
      ...(can('delete')
        ? [
            op(
              'delete',
              `delete${gv}${ns}${kind}`,
              'delete',
              `delete a ${kind}`,
              [body(DELETE_OPTIONS_DEFINITION, false), ...DELETE_QUERY],
              [ok(STATUS_DEFINITION), ok(STATUS_DEFINITION, '202', 'Accepted')],
            ),
          ]
        : []),
      ...(can('patch')
        ? [
            op(
              'patch',
              `patch${gv}${ns}${kind}`,
              'patch',
              `partially update the specified ${kind}`,
              [body(PATCH_DEFINITION), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
              writes(objectDef, false),
              { consumes: patchTypes },
            ),
          ]
        : []),
    ],
  );
  // Subresources: status (the kind itself), scale (autoscaling/v1 Scale).
  const subresource = (
    sub: string,
    name: string,
    def: string | undefined,
    subGvk: ApiOperation['gvk'],
  ): void =>
    add(
      `${item}/${sub}`,
      [namePath, ...scopeParams, PRETTY],
      [
        op(
          'get',
          `read${gv}${ns}${kind}${name}`,
          'get',
          `read ${sub} of the specified ${kind}`,
          [],
          [ok(def)],
          { gvk: subGvk },
        ),
        op(
          'put',
          `replace${gv}${ns}${kind}${name}`,
          'put',
          `replace ${sub} of the specified ${kind}`,
          [body(def ?? ''), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
          writes(def, false),
          { gvk: subGvk },
        ),
        op(
          'patch',
          `patch${gv}${ns}${kind}${name}`,
          'patch',
          `partially update ${sub} of the specified ${kind}`,
          [body(PATCH_DEFINITION), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
          writes(def, false),
          { gvk: subGvk, consumes: patchTypes },
        ),
      ],
    );
  if (hasStatus(t, version)) subresource('status', 'Status', objectDef, gvk);
  if (hasScale(t, version))
    subresource('scale', 'Scale', SCALE_DEFINITION, { group: 'autoscaling', kind: 'Scale', version: 'v1' });
  // Every namespace, and the deprecated watch paths.
  if (t.namespaced && can('list'))
    add(
      `${root}/${t.plural}`,
      [...LIST_QUERY, PRETTY],
      [
        op(
          'get',
          `list${gv}${kind}ForAllNamespaces`,
          'list',
          `list or watch objects of kind ${kind}`,
          [],
          [ok(listDef)],
          { produces: streams },
        ),
      ],
    );
  if (can('watch')) {
    const watch = (
      path: string,
      id: string,
      action: string,
      description: string,
      params: ApiParameter[],
    ): void =>
      add(
        path,
        [...params, ...LIST_QUERY, PRETTY],
        [op('get', id, action, description, [], [ok(WATCH_EVENT_DEFINITION)], { produces: streams })],
      );
    const deprecated = "deprecated: use the 'watch' parameter with a list operation instead";
    watch(
      `${root}/watch${scope}/${t.plural}`,
      `watch${gv}${ns}${kind}List`,
      'watchlist',
      `watch individual changes to a list of ${kind}. ${deprecated}.`,
      scopeParams,
    );
    watch(
      `${root}/watch${scope}/${t.plural}/{name}`,
      `watch${gv}${ns}${kind}`,
      'watch',
      `watch changes to an object of kind ${kind}. ${deprecated}, filtered to a single item with the 'fieldSelector' parameter.`,
      [namePath, ...scopeParams],
    );
    if (t.namespaced)
      watch(
        `${root}/watch/${t.plural}`,
        `watch${gv}${kind}ListForAllNamespaces`,
        'watchlist',
        `watch individual changes to a list of ${kind}. ${deprecated}.`,
        [],
      );
  }
  return out;
}

/** Every path of every served resource at every served version, sorted by path. */
export function apiPaths(registry: ResourceRegistry): ApiPath[] {
  const out: ApiPath[] = [];
  for (const t of registry.all()) for (const v of t.versions) out.push(...pathsOf(t, v, registry.schemas));
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
