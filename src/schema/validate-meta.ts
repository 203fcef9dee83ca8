/**
 * The metadata rules of kube-apiserver's validation, with apimachinery's wording
 * (k8s.io/apimachinery/pkg/util/validation/validation.go and `ValidateObjectMeta`):
 * - `isDNS1123Subdomain` (253), `isDNS1123Label` (63), `isDNS1035Label`: the name formats, each returning
 *   its messages (empty when valid).
 * - `nameMessages(group, kind, name, obj?)`: the kind's name rule (Namespace a DNS-1123 label, Service a
 *   DNS-1035 label, RBAC kinds a path segment, CRDs `<plural>.<group>`, CronJob at most 52 characters,
 *   every other kind a DNS-1123 subdomain).
 * - `metadataViolations(group, kind, obj)`: `metadata.name` (or generateName) present and valid,
 *   `metadata.namespace` a DNS-1123 label, label keys (qualified names) and values, as `SchemaViolation`s.
 * validate.ts runs these after the schema walk; the embedded server and the diff reach them through it.
 */
import type { SchemaViolation } from './violation.js';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** apimachinery IsDNS1123Subdomain. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

/** apimachinery IsDNS1123Label. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    if (DNS1123_SUBDOMAIN.test(value)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL_FMT,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

/** apimachinery IsDNS1035Label. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** apimachinery path.IsValidPathSegmentName (the RBAC kinds' name rule). */
function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const c of ['/', '%']) if (name.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_KINDS = new Set(['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);

/**
 * The messages of the kind's name rule for `name` (empty when valid): kubernetes pkg/apis/<group>/validation
 * `Validate<Kind>Name` (core ValidateNamespaceName, ValidateServiceName; rbac ValidateRBACName; batch
 * ValidateCronJob's 52-character limit; every other kind NameIsDNSSubdomain).
 */
export function nameMessages(group: string, kind: string, name: string, obj?: Obj): string[] {
  if (group === '' && kind === 'Namespace') return isDNS1123Label(name);
  if (group === '' && kind === 'Service') return isDNS1035Label(name);
  if (group === RBAC_GROUP && RBAC_KINDS.has(kind)) return isValidPathSegmentName(name);
  if (group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition' && obj) {
    const spec = isObject(obj['spec']) ? obj['spec'] : {};
    const names = isObject(spec['names']) ? spec['names'] : {};
    if (name !== `${String(names['plural'] ?? '')}.${String(spec['group'] ?? '')}`)
      return ['must be spec.names.plural+"."+spec.group'];
  }
  const errs = isDNS1123Subdomain(name);
  // batch/validation ValidateCronJob: the Job names it creates append an 11-character suffix.
  if (group === 'batch' && kind === 'CronJob' && name.length > 52) errs.push(maxLenError(52));
  return errs;
}

/** Label keys and values (apimachinery ValidateLabels: IsQualifiedName, IsValidLabelValue). */
function labelViolations(labels: unknown, field: string): SchemaViolation[] {
  if (!isObject(labels)) return [];
  const out: SchemaViolation[] = [];
  for (const [k, v] of Object.entries(labels)) {
    const slash = k.indexOf('/');
    const prefix = slash >= 0 ? k.slice(0, slash) : '';
    const nm = slash >= 0 ? k.slice(slash + 1) : k;
    const keyErrs: string[] = [];
    if (slash >= 0) {
      if (prefix.length === 0) keyErrs.push('prefix part must be non-empty');
      else for (const e of isDNS1123Subdomain(prefix)) keyErrs.push(`prefix part ${e}`);
    }
    if (nm.length === 0) keyErrs.push('name part must be non-empty');
    else if (nm.length > 63) keyErrs.push(`name part ${maxLenError(63)}`);
    if (nm.length > 0 && !QUALIFIED_NAME.test(nm)) {
      keyErrs.push(
        `name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
      );
    }
    for (const e of keyErrs)
      out.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(k)}: ${e}` });
    if (typeof v !== 'string') continue; // a type violation, reported by the schema walk
    const valueErrs: string[] = [];
    if (v.length > 63) valueErrs.push(maxLenError(63));
    if (!LABEL_VALUE.test(v)) {
      valueErrs.push(
        regexError(
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          LABEL_VALUE_FMT,
          'MyValue',
          'my_value',
          '12345',
        ),
      );
    }
    for (const e of valueErrs)
      out.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(v)}: ${e}` });
  }
  return out;
}

/** ValidateObjectMeta's checks of name, namespace and labels. */
export function metadataViolations(group: string, kind: string, obj: Obj): SchemaViolation[] {
  const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
  const out: SchemaViolation[] = [];
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  const generateName = typeof meta['generateName'] === 'string' ? meta['generateName'] : '';
  if (!name && !generateName) {
    out.push({
      reason: 'FieldValueRequired',
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
    });
  } else if (name) {
    for (const e of nameMessages(group, kind, name, obj))
      out.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: ${JSON.stringify(name)}: ${e}`,
      });
  }
  const ns = meta['namespace'];
  if (typeof ns === 'string' && ns !== '') {
    for (const e of isDNS1123Label(ns))
      out.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.namespace',
        message: `Invalid value: ${JSON.stringify(ns)}: ${e}`,
      });
  }
  out.push(...labelViolations(meta['labels'], 'metadata.labels'));
  return out;
}
