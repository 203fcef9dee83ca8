/**
 * The validation a real server does that clients commonly trip over, reported as 422 Invalid with one
 * cause per field (field paths and message openings as in apimachinery's field.ErrorList):
 * name format (RFC 1123 subdomain; label for namespaces; RFC 1035 label for services), label keys and
 * values, required pod-spec fields, workload selectors matching template labels, and immutable fields
 * (workload `spec.selector`, `immutable` ConfigMaps and Secrets).
 */
import type { StatusCause } from './errors.js';
import { invalid } from './errors.js';
import { getPath } from './defaults.js';
import type { Json, KObject, ResourceType } from './types.js';
import { isMap } from './types.js';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Kinds whose names are path segments (anything but "/", "%", "." and ".."), as RBAC objects are. */
const PATH_SEGMENT_NAMES = new Set(['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);
const WORKLOADS = new Set(['apps/Deployment', 'apps/StatefulSet', 'apps/DaemonSet', 'apps/ReplicaSet']);

function nameCauses(kind: string, group: string, name: string): StatusCause[] {
  const bad = (msg: string): StatusCause[] => [
    {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(name)}: ${msg}`,
      field: 'metadata.name',
    },
  ];
  if (group === '' && kind === 'Namespace') {
    if (name.length > 63 || !LABEL_1123.test(name)) {
      return bad(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
      );
    }
    return [];
  }
  if (group === '' && kind === 'Service') {
    if (name.length > 63 || !LABEL_1035.test(name)) {
      return bad(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
      );
    }
    return [];
  }
  if (group === 'rbac.authorization.k8s.io' && PATH_SEGMENT_NAMES.has(kind)) {
    if (name === '.' || name === '..' || /[/%]/.test(name))
      return bad('may not contain "/" or "%", or be "." or ".."');
    return [];
  }
  if (name.length > 253 || !SUBDOMAIN.test(name)) {
    return bad(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    );
  }
  return [];
}

function labelCauses(labels: Json | undefined, field: string): StatusCause[] {
  if (labels === undefined) return [];
  if (!isMap(labels))
    return [{ reason: 'FieldValueInvalid', message: 'Invalid value: must be a map of strings', field }];
  const out: StatusCause[] = [];
  for (const [k, v] of Object.entries(labels)) {
    const slash = k.lastIndexOf('/');
    const prefix = slash >= 0 ? k.slice(0, slash) : '';
    const nm = slash >= 0 ? k.slice(slash + 1) : k;
    if (
      (slash >= 0 && (!SUBDOMAIN.test(prefix) || prefix.length > 253)) ||
      nm.length > 63 ||
      !QUALIFIED_NAME.test(nm)
    ) {
      out.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(k)}: name part must consist of alphanumeric characters, '-', '_' or '.'`,
        field,
      });
    }
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) {
      out.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(v)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'`,
        field: `${field}.${k}`,
      });
    }
  }
  return out;
}

function podSpecCauses(spec: Json | undefined, field: string): StatusCause[] {
  if (!isMap(spec)) return [{ reason: 'FieldValueRequired', message: 'Required value', field }];
  const out: StatusCause[] = [];
  const cs = spec['containers'];
  if (!Array.isArray(cs) || cs.length === 0) {
    out.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${field}.containers` });
    return out;
  }
  cs.forEach((c, i) => {
    if (!isMap(c)) return;
    if (!c['name'])
      out.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${field}.containers[${i}].name`,
      });
    if (!c['image'])
      out.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${field}.containers[${i}].image`,
      });
  });
  return out;
}

function selectorMatchesTemplate(obj: KObject): StatusCause[] {
  const sel = getPath(obj as unknown as Json, 'spec.selector');
  const labels = getPath(obj as unknown as Json, 'spec.template.metadata.labels');
  if (!isMap(sel))
    return [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' }];
  const ml = isMap(sel['matchLabels']) ? sel['matchLabels'] : {};
  const have = isMap(labels) ? labels : {};
  const ok = Object.entries(ml).every(([k, v]) => have[k] === v);
  if (ok) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(have)}: \`selector\` does not match template \`labels\``,
      field: 'spec.template.metadata.labels',
    },
  ];
}

/** Throws 422 when `obj` (after defaulting) is not valid; `old` is the stored object on updates. */
export function validate(type: ResourceType, obj: KObject, old?: KObject): void {
  const name = obj.metadata.name ?? '';
  const causes: StatusCause[] = [];
  if (!name) {
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
      field: 'metadata.name',
    });
  } else causes.push(...nameCauses(type.kind, type.group, name));
  causes.push(...labelCauses(obj.metadata.labels as Json | undefined, 'metadata.labels'));
  const gk = `${type.group}/${type.kind}`;
  const root = obj as unknown as Json;
  if (WORKLOADS.has(gk)) {
    causes.push(...selectorMatchesTemplate(obj));
    causes.push(...podSpecCauses(getPath(root, 'spec.template.spec'), 'spec.template.spec'));
  }
  if (gk === '/Pod') causes.push(...podSpecCauses(getPath(root, 'spec'), 'spec'));
  if (gk === 'batch/Job')
    causes.push(...podSpecCauses(getPath(root, 'spec.template.spec'), 'spec.template.spec'));
  if (old) {
    if (
      (WORKLOADS.has(gk) || gk === 'batch/Job') &&
      JSON.stringify(getPath(root, 'spec.selector')) !==
        JSON.stringify(getPath(old as unknown as Json, 'spec.selector'))
    ) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(getPath(root, 'spec.selector'))}: field is immutable`,
        field: 'spec.selector',
      });
    }
    if ((gk === '/ConfigMap' || gk === '/Secret') && old['immutable'] === true) {
      for (const f of ['data', 'binaryData', 'immutable']) {
        if (JSON.stringify(obj[f]) !== JSON.stringify(old[f])) {
          causes.push({
            reason: 'FieldValueForbidden',
            message: 'Forbidden: field is immutable when `immutable` is set',
            field: f,
          });
        }
      }
    }
  }
  if (causes.length > 0) throw invalid(type.kind, type.group, name, causes);
}
