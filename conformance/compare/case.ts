/**
 * The conformance corpus: one YAML file per case under conformance/cases/ (docs/conformance.md "Cases").
 *
 * A case is an Application (or a set, `apps`), the Git content it renders, the live state created before
 * it runs, and what to run: `phases` (refresh, sync, controller) or, for a shards case, `shards`. The
 * same case runs twice, on twin namespaces: Argo CD's side as `<id>-a`, ours as `<id>-o`. Every string of
 * the case may hold the placeholders below; `instantiate` fills them in for one side, and the comparison
 * (normalise.ts) turns each side's values back into the placeholders, so both sides read the same.
 *
 *   ${NS}    the side's destination namespace (`<id>-a` / `<id>-o`); also its app name, project prefix...
 *   ${APP}   the side's app name (the same string as ${NS})
 *   ${REPO}  the URL of the case's main Git repository (`repo`); ${REPO:<name>} one of `repos`
 *   ${ARGOCD_NS} Argo CD's namespace
 *   ${SCM_API} the base URL of the fake GitHub / GitLab API of an ApplicationSet case's `scm`
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

export type Phase = 'refresh' | 'sync' | 'controller' | 'appsets' | 'operations';
/**
 * The phases of an Application case (its default); an ApplicationSet case has `appsets` alone, an
 * operations case `operations` alone.
 */
export const PHASES: readonly Phase[] = ['refresh', 'sync', 'controller'];
export type Binary = 'helm' | 'kustomize' | 'jsonnet';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;

export interface SyncSpec {
  prune?: boolean;
  dryRun?: boolean;
  strategy?: 'apply' | 'hook';
  force?: boolean;
  syncOptions?: string[];
  /** `GROUP:KIND:NAME` as `argocd app sync --resource` (namespace: the side's). */
  resources?: string[];
}

export interface ShardsSpec {
  replicas: number;
  algorithm?: 'legacy' | 'round-robin' | 'consistent-hashing';
  /** Argo CD cluster Secrets (in Argo CD's namespace). */
  clusters: Obj[];
}

/** What an operations step waits for after its write (conformance/compare/operations.ts). */
export type StepUntil = 'end' | 'hookRunning' | 'retrying';

/**
 * One step of an operations case, run in order on each side's Application:
 * - `sync`: an `operation.sync` as `argocd app sync` writes it (`prune`, `dryRun`, `revision`,
 *   `syncOptions`, `strategy`, `retry`, `manifests`: a local sync's objects);
 * - `rollback`: the operation `argocd app rollback APP <id>` writes (history entry `id`'s revision and source);
 * - `terminate`: `status.operationState.phase: Terminating`, as `argocd app terminate-op` writes it;
 * - `push`: a new commit on the main repository holding `files` (the whole tree);
 * - `delete`: the Application deleted (its finalizers run), waited for until it is gone.
 * `until`: what the step waits for (default `end`: the operation ended, or the app gone for `delete`).
 */
export interface OperationStep {
  op: 'sync' | 'rollback' | 'terminate' | 'push' | 'delete';
  until?: StepUntil;
  prune?: boolean;
  dryRun?: boolean;
  /** `${REV:n}` is the side's n-th commit of the main repository (1 = the first). */
  revision?: string;
  syncOptions?: string[];
  strategy?: 'apply' | 'hook';
  retry?: Obj;
  manifests?: Obj[];
  id?: number;
  files?: Record<string, string>;
}

/**
 * One step of an ApplicationSet case, run on each side after its set settled (conformance/compare/appsets.ts),
 * everything at once in this order: `argocd` objects created or replaced (cluster Secrets),
 * `deleteArgocd` (`kind/name` in Argo CD's namespace) deleted, `push` (a new commit of the main
 * repository holding these files, the whole tree), `scmData` (what the case's fake SCM API answers from
 * now on), `apps` (JSON merge patches of generated Applications by name, as a user's `kubectl patch`),
 * `patch` (a JSON merge patch of the set) or `deleteSet` (the set deleted, as `kubectl delete`: give it
 * a finalizer of its own in `appset.metadata` to see what the controller does while it is being deleted;
 * the runner removes it at the end). With `refresh` (the
 * default) the set also gets `argocd.argoproj.io/application-set-refresh`, and the step waits until the
 * controller removed it (its reconcile after the step ended); without, it waits until what is compared
 * changes (the controller's own requeue or watch), at most `waitSeconds` (default 60).
 */
export interface AppSetStep {
  argocd?: Obj[];
  deleteArgocd?: string[];
  push?: Record<string, string>;
  scmData?: Obj;
  apps?: Record<string, Obj>;
  patch?: Obj;
  deleteSet?: boolean;
  refresh?: boolean;
  waitSeconds?: number;
}

const APPSET_STEP_KEYS = new Set([
  'argocd',
  'deleteArgocd',
  'push',
  'scmData',
  'apps',
  'patch',
  'deleteSet',
  'refresh',
  'waitSeconds',
]);

const STEP_KEYS = new Set([
  'op',
  'until',
  'prune',
  'dryRun',
  'revision',
  'syncOptions',
  'strategy',
  'retry',
  'manifests',
  'id',
  'files',
]);

export interface Case {
  /** Short unique id (`c001`...): the twin namespaces are `<id>-a` and `<id>-o`. */
  id: string;
  /** A readable name: what is exercised. */
  name: string;
  /** Where the case comes from and what it checks (the file's header comment says the same). */
  intent: string;
  provenance: string;
  family: string;
  /** Binaries the case needs beyond git (it is reported "not run" without them, never skipped silently). */
  needs: Binary[];
  phases: Phase[];
  /** The main repository's files (path -> content). */
  repo: Record<string, string>;
  /** Further repositories (multi-source), by name. */
  repos: Record<string, Record<string, string>>;
  /** The Application, without metadata.name (the side's) and status; metadata.namespace defaults to Argo CD's. */
  app?: Obj;
  /** Extra Applications of the set (app-of-apps children are rendered, not listed here). */
  apps: Obj[];
  /** Argo CD objects created first in Argo CD's namespace: AppProjects, cluster or repository Secrets. */
  argocd: Obj[];
  /** Live objects created before the run (namespace: the side's unless set); `status` is written after. */
  live: Obj[];
  /** Namespaces created besides the destination (e.g. `${NS}-extra`). */
  namespaces: string[];
  /** Create the destination namespace before the run (default true). */
  createNamespace: boolean;
  /** argocd-cm data this case needs: cases are batched by it (it is global). */
  argocdCm: Record<string, string>;
  sync: SyncSpec;
  shards?: ShardsSpec;
  /**
   * An ApplicationSets case: the ApplicationSet (no metadata.name: each side's is its `<id>-a` / `<id>-o`;
   * its generated Applications should carry `${NS}` in their names), reconciled by Argo CD's
   * ApplicationSet controller and by ours (conformance/compare/appsets.ts).
   */
  appset?: Obj;
  /** An operations case: steps run on each side's Application in turn (conformance/compare/operations.ts). */
  operations?: OperationStep[];
  /** Steps of an ApplicationSet case after its first reconcile; what is compared is read after each. */
  appsetSteps?: AppSetStep[];
  /**
   * A fake GitHub and GitLab API on loopback for an ApplicationSet case's pull request and SCM provider
   * generators (test/support/scm-api.ts, `${SCM_API}`): the token every request must carry, and the data
   * (its `ScmData`), the same for both sides; `tls`: served over HTTPS with the fixtures' server
   * certificate (test/fixtures/clusters, SAN 127.0.0.1, signed by its `ca.pem`).
   */
  scm?: { token: string; data: Obj; tls?: boolean };
  /** Path of the file, relative to the cases folder. */
  file: string;
}

const KNOWN = new Set([
  'id',
  'name',
  'intent',
  'provenance',
  'family',
  'needs',
  'phases',
  'repo',
  'repos',
  'app',
  'apps',
  'argocd',
  'live',
  'namespaces',
  'createNamespace',
  'argocdCm',
  'sync',
  'shards',
  'appset',
  'operations',
  'appsetSteps',
  'scm',
]);

function fail(file: string, why: string): never {
  throw new Error(`${file}: failed to load case: ${why}`);
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strMap(file: string, field: string, v: unknown): Record<string, string> {
  if (v === undefined) return {};
  if (!isObj(v)) fail(file, `${field} must be a map of strings`);
  for (const [k, x] of Object.entries(v))
    if (typeof x !== 'string') fail(file, `${field}.${k} must be a string`);
  return v as Record<string, string>;
}

function objList(file: string, field: string, v: unknown): Obj[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every(isObj)) fail(file, `${field} must be a list of objects`);
  return v;
}

function parseSteps(file: string, v: unknown, hasApp: boolean): void {
  if (!hasApp) fail(file, 'operations need an app');
  if (!Array.isArray(v) || v.length === 0 || !v.every(isObj))
    fail(file, 'operations must be a list of steps');
  v.forEach((s: Obj, i) => {
    const at = `operations[${i}]`;
    for (const k of Object.keys(s)) if (!STEP_KEYS.has(k)) fail(file, `${at}: unknown field ${k}`);
    if (!['sync', 'rollback', 'terminate', 'push', 'delete'].includes(s.op))
      fail(file, `${at}: unknown op ${String(s.op)}`);
    if (s.until !== undefined && !['end', 'hookRunning', 'retrying'].includes(s.until))
      fail(file, `${at}: unknown until ${String(s.until)}`);
    if (s.until && s.until !== 'end' && s.op !== 'sync') fail(file, `${at}: until ${s.until} needs op sync`);
    if (s.op === 'rollback' && typeof s.id !== 'number') fail(file, `${at}: rollback needs an id`);
    if (s.op === 'push') strMap(file, `${at}.files`, s.files ?? fail(file, `${at}: push needs files`));
    if (s.manifests !== undefined) objList(file, `${at}.manifests`, s.manifests);
  });
}

function parseAppSetSteps(file: string, v: unknown, hasSet: boolean): void {
  if (!hasSet) fail(file, 'appsetSteps need an appset');
  if (!Array.isArray(v) || v.length === 0 || !v.every(isObj))
    fail(file, 'appsetSteps must be a list of steps');
  v.forEach((s: Obj, i) => {
    const at = `appsetSteps[${i}]`;
    for (const k of Object.keys(s)) if (!APPSET_STEP_KEYS.has(k)) fail(file, `${at}: unknown field ${k}`);
    if (s.push !== undefined) strMap(file, `${at}.push`, s.push);
    if (s.argocd !== undefined) objList(file, `${at}.argocd`, s.argocd);
    if (s.apps !== undefined && (!isObj(s.apps) || !Object.values(s.apps).every(isObj)))
      fail(file, `${at}.apps must map names to merge patches`);
    if (s.patch !== undefined && !isObj(s.patch)) fail(file, `${at}.patch must be a merge patch`);
    if (s.scmData !== undefined && !isObj(s.scmData)) fail(file, `${at}.scmData must be the fake API's data`);
    if (s.deleteSet && (s.patch !== undefined || s.refresh !== false))
      fail(file, `${at}: deleteSet goes with no patch and refresh: false`);
  });
}

/** Parses and checks one case document. */
export function parseCase(text: string, file: string): Case {
  let doc: unknown;
  try {
    doc = parse(text, { uniqueKeys: false });
  } catch (e) {
    fail(file, (e as Error).message.split('\n')[0]!);
  }
  if (!isObj(doc)) fail(file, 'not a YAML map');
  for (const k of Object.keys(doc)) if (!KNOWN.has(k)) fail(file, `unknown field ${k}`);
  for (const k of ['id', 'name', 'intent', 'provenance', 'family'])
    if (typeof doc[k] !== 'string' || doc[k] === '') fail(file, `${k} is required`);
  if (!/^c[0-9]{3}$/.test(doc.id)) fail(file, `id ${doc.id} is not c + 3 digits`);
  const needs = (doc.needs ?? []) as unknown[];
  for (const n of needs)
    if (n !== 'helm' && n !== 'kustomize' && n !== 'jsonnet') fail(file, `unknown binary ${String(n)}`);
  const phases = (doc.phases ??
    (doc.shards ? [] : doc.appset ? ['appsets'] : doc.operations ? ['operations'] : PHASES)) as unknown[];
  for (const p of phases)
    if (![...PHASES, 'appsets', 'operations'].includes(p as Phase)) fail(file, `unknown phase ${String(p)}`);
  if (doc.operations !== undefined) parseSteps(file, doc.operations, Boolean(doc.app));
  if (doc.appset !== undefined && !isObj(doc.appset)) fail(file, 'appset must be an ApplicationSet');
  if (doc.appsetSteps !== undefined) parseAppSetSteps(file, doc.appsetSteps, Boolean(doc.appset));
  if (doc.scm !== undefined && (!isObj(doc.scm) || typeof doc.scm.token !== 'string' || !isObj(doc.scm.data)))
    fail(file, 'scm needs a token and data');
  const repos: Record<string, Record<string, string>> = {};
  if (doc.repos !== undefined) {
    if (!isObj(doc.repos)) fail(file, 'repos must be a map');
    for (const [k, v] of Object.entries(doc.repos)) repos[k] = strMap(file, `repos.${k}`, v);
  }
  if (doc.app !== undefined && !isObj(doc.app)) fail(file, 'app must be an Application');
  if (!doc.app && !doc.shards && !doc.appset) fail(file, 'a case has an app, an appset or shards');
  if (doc.shards !== undefined) {
    const s = doc.shards;
    if (!isObj(s) || typeof s.replicas !== 'number' || !Array.isArray(s.clusters))
      fail(file, 'shards needs replicas and clusters');
  }
  return {
    id: doc.id,
    name: doc.name,
    intent: doc.intent,
    provenance: doc.provenance,
    family: doc.family,
    needs: needs as Binary[],
    phases: phases as Phase[],
    repo: strMap(file, 'repo', doc.repo),
    repos,
    ...(doc.app ? { app: doc.app as Obj } : {}),
    apps: objList(file, 'apps', doc.apps),
    argocd: objList(file, 'argocd', doc.argocd),
    live: objList(file, 'live', doc.live),
    namespaces: (doc.namespaces ?? []) as string[],
    createNamespace: doc.createNamespace !== false,
    argocdCm: strMap(file, 'argocdCm', doc.argocdCm),
    sync: (doc.sync ?? {}) as SyncSpec,
    ...(doc.shards ? { shards: doc.shards as ShardsSpec } : {}),
    ...(doc.appset ? { appset: doc.appset as Obj } : {}),
    ...(doc.operations ? { operations: doc.operations as OperationStep[] } : {}),
    ...(doc.appsetSteps ? { appsetSteps: doc.appsetSteps as AppSetStep[] } : {}),
    ...(doc.scm ? { scm: doc.scm as { token: string; data: Obj; tls?: boolean } } : {}),
    file,
  };
}

/** Every case under `dir` (recursively, `*.yaml`), sorted by id; duplicate ids are an error naming both files. */
export function loadCases(dir: string): Case[] {
  const files: string[] = [];
  (function walk(d: string) {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith('.yaml')) files.push(p);
    }
  })(dir);
  const byId = new Map<string, Case>();
  for (const f of files) {
    const c = parseCase(readFileSync(f, 'utf8'), relative(dir, f));
    const seen = byId.get(c.id);
    if (seen) fail(c.file, `id ${c.id} is also the id of ${seen.file}`);
    byId.set(c.id, c);
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export type Side = 'a' | 'o';

export interface SideValues {
  ns: string;
  repoUrl: (name: string) => string;
  argocdNs: string;
  /** The fake SCM API's base URL (ApplicationSet cases with `scm`). */
  scmApi?: string;
}

/** The side's name of a case: `<id>-a` (Argo CD's) or `<id>-o` (ours). */
export function sideName(c: Case, side: Side): string {
  return `${c.id}-${side}`;
}

/** Fills the placeholders of every string in `v`. */
export function fill<T>(v: T, values: SideValues): T {
  const s = JSON.stringify(v).replace(
    /\$\{(NS|APP|REPO|ARGOCD_NS|SCM_API)(?::([a-z0-9-]+))?\}/g,
    (m, key, name) => {
      if (key === 'NS' || key === 'APP') return values.ns;
      if (key === 'ARGOCD_NS') return values.argocdNs;
      if (key === 'SCM_API') return values.scmApi ?? m;
      return values.repoUrl(name ?? 'main');
    },
  );
  return JSON.parse(s) as T;
}

/** The case's Application for one side: name, namespace, placeholders filled. */
export function sideApp(c: Case, values: SideValues): Obj {
  const app = fill(structuredClone(c.app ?? {}), values);
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    ...app,
    metadata: {
      ...(app.metadata ?? {}),
      name: values.ns,
      namespace: app.metadata?.namespace ?? values.argocdNs,
    },
  };
}
