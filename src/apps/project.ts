/**
 * AppProjects (argoproj.io/v1alpha1 `AppProject`): the model, its parser, and the set of projects a run
 * knows (`ProjectSet`).
 *
 * - `parseProject(manifest, origin)` keeps the fields Argo CD's controller enforces, named as in
 *   `pkg/apis/application/v1alpha1/types.go AppProjectSpec`: sourceRepos, sourceNamespaces, destinations,
 *   permitOnlyProjectScopedClusters, the four resource lists (cluster entries may carry a `name` glob, as
 *   Argo CD 3.x `ClusterResourceRestrictionItem`), orphanedResources. `syncWindows` is kept as read
 *   (`unknown`, untouched): src/apps/sync-windows.ts interprets it. A field of the wrong shape is an error
 *   naming the project and the field; unknown fields are ignored (roles, signature keys: not the
 *   controller's business).
 * - `DEFAULT_PROJECT`: the `default` project Argo CD's API server creates when none exists
 *   (`server/server.go initializeDefaultProject`): every repo, every destination, every kind.
 * - `ProjectSet.get(name)` finds a project by name; `default` falls back to DEFAULT_PROJECT when no
 *   `default` AppProject was given. Two different manifests of one name are an error naming both origins.
 * - `loadProjectFiles(paths)` reads the AppProjects of files and folders (`--project-file`, and the `-f`
 *   app files, where they may sit beside Applications); other documents are ignored.
 */
import { UsageError } from '../common/index.js';
import { describeSource, readKubeObjects, type KubeObject } from '../util/yaml-docs.js';
import { listAppFiles } from './load.js';

export const APP_PROJECT_KIND = 'AppProject';
export const DEFAULT_PROJECT_NAME = 'default';

export interface GroupKind {
  group: string;
  kind: string;
}

/** A cluster-scoped entry; `name` (a filepath.Match glob) narrows it to named objects when set. */
export interface NamedGroupKind extends GroupKind {
  name: string;
}

export interface ProjectDestination {
  server: string;
  name: string;
  namespace: string;
}

export interface OrphanedResourcesSettings {
  /** `warn: true`: an OrphanedResourceWarning condition when the app has orphans. */
  warn: boolean;
  ignore: Array<{ group: string; kind: string; name: string }>;
}

export interface AppProject {
  name: string;
  sourceRepos: string[];
  sourceNamespaces: string[];
  destinations: ProjectDestination[];
  permitOnlyProjectScopedClusters: boolean;
  /** Unset (undefined) and empty differ for the namespaced whitelist: unset allows every kind. */
  namespaceResourceWhitelist?: GroupKind[];
  namespaceResourceBlacklist: GroupKind[];
  clusterResourceWhitelist: NamedGroupKind[];
  clusterResourceBlacklist: NamedGroupKind[];
  /** Unset: orphaned resources are not monitored. */
  orphanedResources?: OrphanedResourcesSettings;
  /** `spec.syncWindows` exactly as read (interpreted by src/apps/sync-windows.ts). */
  syncWindows: unknown;
  /** Where it was read: "projects.yaml (document 2)", "cluster argocd/team-a" or "built-in". */
  origin: string;
  manifest?: KubeObject;
}

/** Argo CD's default project (server/server.go initializeDefaultProject). */
export const DEFAULT_PROJECT: AppProject = Object.freeze({
  name: DEFAULT_PROJECT_NAME,
  sourceRepos: ['*'],
  sourceNamespaces: [],
  destinations: [{ server: '*', name: '', namespace: '*' }],
  permitOnlyProjectScopedClusters: false,
  namespaceResourceBlacklist: [],
  clusterResourceWhitelist: [{ group: '*', kind: '*', name: '' }],
  clusterResourceBlacklist: [],
  syncWindows: undefined,
  origin: "built-in (Argo CD's default project)",
});

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseProject(manifest: KubeObject, origin: string): AppProject {
  const name = manifest.metadata?.name;
  const fail = (why: string): never => {
    throw new UsageError(`failed to load AppProject${name ? ` "${name}"` : ''}: ${why}`, { subject: origin });
  };
  if (typeof name !== 'string' || name === '') return fail('metadata.name is required');
  const specValue = (manifest as { spec?: unknown }).spec ?? {};
  if (!isObj(specValue)) return fail('spec must be an object');
  const spec = specValue;
  const list = (field: string): unknown[] => {
    const v = spec[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return fail(`spec.${field} must be a list`);
    return v as unknown[];
  };
  const str = (v: unknown, field: string): string => {
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') return fail(`${field} must be a string`);
    return v;
  };
  const strings = (field: string): string[] => list(field).map((v, i) => str(v, `spec.${field}[${i}]`));
  const entries = (field: string): Obj[] =>
    list(field).map((v, i) => (isObj(v) ? v : fail(`spec.${field}[${i}] must be an object`)));
  const groupKinds = (field: string): GroupKind[] =>
    entries(field).map((e, i) => ({
      group: str(e['group'], `spec.${field}[${i}].group`),
      kind: str(e['kind'], `spec.${field}[${i}].kind`),
    }));
  const named = (field: string): NamedGroupKind[] =>
    entries(field).map((e, i) => ({
      group: str(e['group'], `spec.${field}[${i}].group`),
      kind: str(e['kind'], `spec.${field}[${i}].kind`),
      name: str(e['name'], `spec.${field}[${i}].name`),
    }));
  const permit = spec['permitOnlyProjectScopedClusters'];
  if (permit !== undefined && permit !== null && typeof permit !== 'boolean')
    fail('spec.permitOnlyProjectScopedClusters must be a boolean');
  let orphanedResources: OrphanedResourcesSettings | undefined;
  const orphaned = spec['orphanedResources'];
  if (orphaned !== undefined && orphaned !== null) {
    if (!isObj(orphaned)) return fail('spec.orphanedResources must be an object');
    const warn = orphaned['warn'];
    if (warn !== undefined && warn !== null && typeof warn !== 'boolean')
      fail('spec.orphanedResources.warn must be a boolean');
    const ignore = orphaned['ignore'] ?? [];
    if (!Array.isArray(ignore)) return fail('spec.orphanedResources.ignore must be a list');
    orphanedResources = {
      warn: warn === true,
      ignore: (ignore as unknown[]).map((e, i) => {
        const at = `spec.orphanedResources.ignore[${i}]`;
        if (!isObj(e)) return fail(`${at} must be an object`);
        return {
          group: str(e['group'], `${at}.group`),
          kind: str(e['kind'], `${at}.kind`),
          name: str(e['name'], `${at}.name`),
        };
      }),
    };
  }
  const nsWhitelist = spec['namespaceResourceWhitelist'];
  return {
    name,
    sourceRepos: strings('sourceRepos'),
    sourceNamespaces: strings('sourceNamespaces'),
    destinations: entries('destinations').map((e, i) => ({
      server: str(e['server'], `spec.destinations[${i}].server`),
      name: str(e['name'], `spec.destinations[${i}].name`),
      namespace: str(e['namespace'], `spec.destinations[${i}].namespace`),
    })),
    permitOnlyProjectScopedClusters: permit === true,
    // Go decodes an absent list as nil and `[]` as empty: only nil allows every namespaced kind.
    ...(nsWhitelist === undefined || nsWhitelist === null
      ? {}
      : { namespaceResourceWhitelist: groupKinds('namespaceResourceWhitelist') }),
    namespaceResourceBlacklist: groupKinds('namespaceResourceBlacklist'),
    clusterResourceWhitelist: named('clusterResourceWhitelist'),
    clusterResourceBlacklist: named('clusterResourceBlacklist'),
    ...(orphanedResources ? { orphanedResources } : {}),
    syncWindows: spec['syncWindows'],
    origin,
    manifest,
  };
}

/** The AppProjects a run knows, by name (one namespace: Argo CD reads projects from its own only). */
export class ProjectSet {
  readonly #byName = new Map<string, AppProject>();

  constructor(projects: Iterable<AppProject> = []) {
    for (const p of projects) this.add(p);
  }

  /** Adds a project; the same name from two places is an error unless both manifests are identical. */
  add(project: AppProject): void {
    const first = this.#byName.get(project.name);
    if (first) {
      if (JSON.stringify(first.manifest?.spec) === JSON.stringify(project.manifest?.spec)) return;
      throw new UsageError(
        `failed to load AppProject "${project.name}": duplicate name (first defined in ${first.origin})`,
        { subject: project.origin },
      );
    }
    this.#byName.set(project.name, project);
  }

  /** The project named `name`; `default` is Argo CD's default project unless one was given. */
  get(name: string): AppProject | undefined {
    return this.#byName.get(name) ?? (name === DEFAULT_PROJECT_NAME ? DEFAULT_PROJECT : undefined);
  }

  get size(): number {
    return this.#byName.size;
  }

  names(): string[] {
    return [...this.#byName.keys()];
  }
}

/**
 * Every AppProject in `paths` (files or folders, `-` = stdin), in file then document order. With
 * `requireProjects` (`--project-file`), a path holding none is an error, "no AppProject in PATH".
 */
export async function loadProjectFiles(
  paths: readonly string[],
  options: { requireProjects?: boolean } = {},
): Promise<AppProject[]> {
  const projects: AppProject[] = [];
  for (const path of paths) {
    let found = 0;
    for (const file of await listAppFiles([path], 'AppProjects')) {
      for (const sourced of await readKubeObjects(file)) {
        if (sourced.object.kind !== APP_PROJECT_KIND) continue;
        projects.push(parseProject(sourced.object, describeSource(sourced)));
        found++;
      }
    }
    if (found === 0 && options.requireProjects) {
      const shown = path === '-' ? '<stdin>' : path;
      throw new UsageError(`failed to read AppProjects: no AppProject in ${shown}`, { subject: shown });
    }
  }
  return projects;
}
