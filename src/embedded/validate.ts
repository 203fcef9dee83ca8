/**
 * The validation a real server does that clients commonly trip over, reported as 422 Invalid with one
 * cause per field (field paths and messages as in apimachinery's field.ErrorList):
 * what src/schema `validateObject` finds (name format per kind, namespace, label keys and values; custom
 * resources: their CRD schema's types, enums, required fields), required pod-spec fields, workload
 * selectors matching template labels, and immutable fields (workload `spec.selector`, `immutable`
 * ConfigMaps and Secrets). Built-in kinds' values of the wrong type are a decode failure instead (400,
 * `checkDecodes`), as on a real server.
 */
import { jobStatusCauses } from './job-status.js';
import { podStatusCauses } from './pod-status.js';
import { validateObject } from '../schema/index.js';
import type { SchemaCatalog } from '../schema/index.js';
import type { StatusCause } from './errors.js';
import { ApiError, badRequest, invalid } from './errors.js';
import { getPath } from './defaults.js';
import type { Json, JsonMap, KObject, ResourceType } from './types.js';
import { isMap } from './types.js';

const WORKLOADS = new Set(['apps/Deployment', 'apps/StatefulSet', 'apps/DaemonSet', 'apps/ReplicaSet']);

/**
 * The decode step of a real server (before defaulting and validation): a built-in kind whose body does not
 * decode into its Go type (a string where the type has an integer, a Secret `data` value that is not
 * base64) is 400 BadRequest `<Kind> in version "<v>" cannot be handled as a <Kind>: <decoder message>`,
 * the first failure only, as Go's decoder reports it.
 */
export function checkDecodes(
  type: ResourceType,
  version: string,
  obj: KObject,
  schemas: SchemaCatalog,
): void {
  const failure = validateObject(schemas, obj as unknown as JsonMap).find((v) => v.decode);
  if (failure) {
    throw badRequest(
      `${type.kind} in version "${version}" cannot be handled as a ${type.kind}: ${failure.decode}`,
    );
  }
}

/**
 * The decode step of a patch (merge, JSON or strategic merge): the patched object that does not decode
 * into the kind's Go type is 422 Invalid on the field `patch`, its value the patched object's JSON, as
 * kube-apiserver's patch handler words it (endpoints/handlers/patch.go: `errors.NewInvalid(schema.GroupKind{},
 * "", field.Invalid(field.NewPath("patch"), string(patchedObjJS), err.Error()))`, hence the empty kind and
 * name). Only the failure of a built-in kind; custom resources are judged by validation (422 as well).
 */
export function checkPatchDecodes(obj: KObject, schemas: SchemaCatalog): void {
  const failure = validateObject(schemas, obj as unknown as JsonMap).find((v) => v.decode);
  if (!failure) return;
  const message = `Invalid value: ${JSON.stringify(JSON.stringify(obj))}: ${failure.decode}`;
  throw new ApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    name: '',
    group: '',
    kind: '',
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}

/**
 * The decode step of a strategic merge patch: kube-apiserver merges into the stored object's unstructured
 * map and converts the result with `runtime.DefaultUnstructuredConverter` (endpoints/handlers/patch.go
 * `applyPatchToObject`), so a failure is 422 Invalid on `patch` in the converter's words
 * (`unrecognized type: int32`), its value the patch as Go prints a map (`fmt.Sprintf("%+v", patchMap)`).
 */
export function checkStrategicPatchDecodes(patch: Json, obj: KObject, schemas: SchemaCatalog): void {
  const failure = validateObject(schemas, obj as unknown as JsonMap).find((v) => v.decode);
  if (!failure) return;
  const message = `Invalid value: ${JSON.stringify(goValue(patch))}: ${failure.convert ?? failure.decode}`;
  throw new ApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    name: '',
    group: '',
    kind: '',
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}

/**
 * A decoded JSON value as Go's fmt prints it with %v: `map[k:v ...]` (keys sorted), `[a b]`, strings bare,
 * `<nil>`; integers as they are (the patch is decoded with PreserveInts), other numbers as %g (shortest,
 * an exponent below 1e-4 and from 1e+06 on).
 */
export function goValue(v: Json): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isMap(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goValue(v[k] as Json)}`)
      .join(' ')}]`;
  if (typeof v === 'number' && !Number.isInteger(v)) {
    const exponent = Math.floor(Math.log10(Math.abs(v)));
    if (exponent >= -4 && exponent < 6) return String(v);
    const [mantissa, exp] = v.toExponential().split('e') as [string, string];
    const e = Number(exp);
    return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return String(v);
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

/**
 * Throws 422 when `obj` (after defaulting) is not valid; `old` is the stored object on updates. The
 * schema's verdict (src/schema `validateObject`: names, labels, and for custom resources their CRD
 * schema's types, enums and required fields) comes first, then the kind rules here.
 */
export function validate(type: ResourceType, obj: KObject, schemas: SchemaCatalog, old?: KObject): void {
  const name = obj.metadata.name ?? '';
  const causes: StatusCause[] = validateObject(schemas, obj as unknown as JsonMap)
    .filter((v) => !v.decode)
    .map((v) => ({ reason: v.reason, message: v.message, field: v.field }));
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
    if (gk === 'batch/Job') causes.push(...jobStatusCauses(obj, old));
    if (gk === '/Pod') causes.push(...podStatusCauses(obj, old));
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
