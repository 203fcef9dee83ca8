// Over 400 lines: one idea, the registry of served types (built-in table + CRD kinds), whose data table is most of it.
/**
 * The registry of served resource types: the built-in kinds (a data table) plus the kinds of every
 * CustomResourceDefinition currently stored. Creating a CRD serves its kinds at each `served` version;
 * deleting it stops serving them (the store drops their objects).
 *
 * Lookups are by (group, version, plural) for URLs and by (apiVersion, kind) for bodies and `--data` files.
 */
import type { Schema } from '../schema/index.js';
import { SchemaCatalog } from '../schema/index.js';
import type { JsonMap, KObject, PrinterColumn, ResourceType, ScalePaths } from './types.js';
import { isMap } from './types.js';

export const STANDARD_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

interface BuiltinRow {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  generation?: boolean;
  verbs?: string[];
  scale?: boolean;
}

/** Built-in kinds served by the embedded server (a subset of a real cluster's). */
const BUILTINS: BuiltinRow[] = [
  {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    status: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, shortNames: ['cm'] },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  {
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    status: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  },
  {
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    namespaced: true,
    shortNames: ['sa'],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    status: true,
  },
  {
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    namespaced: true,
    shortNames: ['pvc'],
    status: true,
  },
  { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, shortNames: ['ev'] },
  {
    group: '',
    version: 'v1',
    kind: 'Node',
    plural: 'nodes',
    namespaced: false,
    shortNames: ['no'],
    status: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    status: true,
    generation: true,
    scale: true,
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    status: true,
    generation: true,
    scale: true,
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    plural: 'daemonsets',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    status: true,
    generation: true,
    scale: true,
  },
  {
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    plural: 'jobs',
    namespaced: true,
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    group: 'batch',
    version: 'v1',
    kind: 'CronJob',
    plural: 'cronjobs',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    plural: 'ingresses',
    namespaced: true,
    shortNames: ['ing'],
    status: true,
    generation: true,
  },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'RoleBinding',
    plural: 'rolebindings',
    namespaced: true,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    namespaced: false,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    namespaced: false,
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    status: true,
    generation: true,
  },
];

function builtin(row: BuiltinRow): ResourceType {
  return {
    group: row.group,
    versions: [row.version],
    kind: row.kind,
    listKind: `${row.kind}List`,
    plural: row.plural,
    singular: row.kind.toLowerCase(),
    namespaced: row.namespaced,
    shortNames: row.shortNames ?? [],
    categories: row.categories ?? [],
    verbs: row.verbs ?? STANDARD_VERBS,
    statusVersions: row.status ? [row.version] : [],
    generation: row.generation ?? false,
    strategicMerge: true,
    ...(row.scale ? { scaleSubresource: true } : {}),
  };
}

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_PLURAL = 'customresourcedefinitions';

export class ResourceRegistry {
  /** typeKey -> type; the order of insertion is discovery order. */
  private readonly types = new Map<string, ResourceType>();
  /** Schemas of the served kinds: Kubernetes' published OpenAPI plus the stored CRDs' schemas. */
  readonly schemas = new SchemaCatalog();
  /** Bumped whenever a CRD is (re)registered or removed: what was decoded under older schemas is stale. */
  crdEpoch = 0;

  constructor() {
    for (const row of BUILTINS) this.add(builtin(row));
  }

  private add(t: ResourceType): void {
    this.types.set(`${t.group}/${t.plural}`, t);
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** The type served at group/version under this plural (undefined when not served). */
  byPlural(group: string, version: string, plural: string): ResourceType | undefined {
    const t = this.types.get(`${group}/${plural}`);
    return t && t.versions.includes(version) ? t : undefined;
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    for (const t of this.types.values()) {
      if (t.group === group && t.kind === kind && t.versions.includes(version ?? '')) return t;
    }
    return undefined;
  }

  /** Group -> versions served (preferred first), in discovery order; the core group is not included. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const t of this.types.values()) {
      if (!t.group) continue;
      const vs = out.get(t.group) ?? [];
      for (const v of t.versions) if (!vs.includes(v)) vs.push(v);
      out.set(t.group, vs);
    }
    for (const vs of out.values()) vs.sort((a, b) => compareKubeAwareVersions(b, a));
    return out;
  }

  /** The schema of a served type at a version (undefined when neither Kubernetes nor its CRD has one). */
  schemaOf(t: ResourceType, version: string): Schema | undefined {
    return this.schemas.schemaFor({ group: t.group, version, kind: t.kind });
  }

  typesAt(group: string, version: string): ResourceType[] {
    return this.all().filter((t) => t.group === group && t.versions.includes(version));
  }

  /**
   * Serves the kinds of a CRD (replacing an earlier registration of the same CRD). Returns the type, or
   * undefined when the CRD serves no version.
   */
  registerCrd(crd: KObject): ResourceType | undefined {
    const name = crd.metadata.name ?? '';
    this.unregisterCrd(name);
    this.crdEpoch++;
    this.schemas.addCustomResourceDefinition(crd);
    const spec = isMap(crd['spec']) ? crd['spec'] : {};
    const names = isMap(spec['names']) ? spec['names'] : {};
    const group = String(spec['group'] ?? '');
    const plural = String(names['plural'] ?? '');
    const kind = String(names['kind'] ?? '');
    const versions = Array.isArray(spec['versions']) ? spec['versions'].filter(isMap) : [];
    const served = versions.filter((v) => v['served'] !== false);
    if (!group || !plural || !kind || served.length === 0) return undefined;
    // Discovery lists a CRD's versions by Kubernetes' version priority, the first being preferred
    // (apiextensions-apiserver customresource_discovery_controller.go sortGroupDiscoveryByKubeAwareVersion;
    // kube-aggregator orders the APIServices crdregistration registers the same way): v1 before v1alpha1,
    // whichever version stores.
    served.sort((a, b) => compareKubeAwareVersions(String(b['name']), String(a['name'])));
    const storage = (versions.find((v) => v['storage'] === true) ?? served[0]) as JsonMap;
    // Subresources are per version (apiextensions helpers GetSubresourcesForVersion): v1 may serve
    // /status where v1beta1 does not.
    const statusVersions = served
      .filter((v) => isMap(v['subresources']) && isMap(v['subresources']['status']))
      .map((v) => String(v['name']));
    const scaleByVersion: Record<string, ScalePaths> = {};
    for (const v of served) {
      const scale = isMap(v['subresources']) ? v['subresources']['scale'] : undefined;
      if (!isMap(scale)) continue;
      scaleByVersion[String(v['name'])] = {
        specReplicasPath: String(scale['specReplicasPath'] ?? ''),
        statusReplicasPath: String(scale['statusReplicasPath'] ?? ''),
        ...(typeof scale['labelSelectorPath'] === 'string'
          ? { labelSelectorPath: scale['labelSelectorPath'] }
          : {}),
      };
    }
    const columns: Record<string, PrinterColumn[]> = {};
    for (const v of served)
      if (Array.isArray(v['additionalPrinterColumns']))
        columns[String(v['name'])] = v['additionalPrinterColumns'].filter(
          isMap,
        ) as unknown as PrinterColumn[];
    const t: ResourceType = {
      group,
      versions: served.map((v) => String(v['name'])),
      kind,
      listKind: String(names['listKind'] ?? `${kind}List`),
      plural,
      singular: String(names['singular'] ?? kind.toLowerCase()),
      namespaced: spec['scope'] !== 'Cluster',
      shortNames: Array.isArray(names['shortNames']) ? names['shortNames'].map(String) : [],
      categories: Array.isArray(names['categories']) ? names['categories'].map(String) : [],
      verbs: STANDARD_VERBS,
      statusVersions,
      ...(Object.keys(scaleByVersion).length > 0 ? { scaleByVersion } : {}),
      storageVersion: String(storage['name']),
      generation: true,
      strategicMerge: false,
      crd: name,
      printerColumns: columns,
    };
    this.add(t);
    return t;
  }

  /** Stops serving the kinds of a CRD; returns the type that was served, if any. */
  unregisterCrd(crdName: string): ResourceType | undefined {
    this.schemas.removeCustomResourceDefinition(crdName);
    this.crdEpoch++;
    for (const [key, t] of this.types) {
      if (t.crd === crdName) {
        this.types.delete(key);
        return t;
      }
    }
    return undefined;
  }
}

/**
 * Kubernetes' version priority (apimachinery pkg/version/helpers.go CompareKubeAwareVersionStrings):
 * positive when `a` ranks above `b`. Kube-like versions (`v<major>`, `v<major>alpha<n>`, `v<major>beta<n>`)
 * rank GA over beta over alpha, then by major, then by the alpha/beta number; any other name ranks below
 * them all, and those by reverse string order ("foo1" above "foo10").
 * Ordered highest first: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parseKubeVersion(a);
  const pb = parseKubeVersion(b);
  if (!pa && !pb) return a < b ? 1 : -1;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa.type !== pb.type) return pa.type - pb.type;
  if (pa.major !== pb.major) return pa.major - pb.major;
  return pa.minor - pb.minor;
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function parseKubeVersion(v: string): { major: number; type: number; minor: number } | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const type = m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2;
  return { major: Number(m[1]), type, minor: m[3] === undefined ? 0 : Number(m[3]) };
}
