/**
 * `ArgoNamespaceWatch`: the live Argo CD control-plane namespace (`--argocd-namespace`) as the controller
 * reads it, Argo CD's informers on Applications, AppProjects, argocd-cm and the cluster and repository
 * Secrets (controller/appcontroller.go newApplicationInformerAndLister, the project informer, the settings
 * manager's ConfigMap and Secret informers).
 *
 * One `LiveStateCache` (src/cluster) over that namespace: one LIST then WATCH per kind, relisted on 410 and
 * rewatched at the watch timeout as client-go's reflector does; Secrets are listed with the label selector
 * `argocd.argoproj.io/secret-type` (only Argo CD's own Secrets are read, never the namespace's others),
 * ConfigMaps with none (argocd-cm carries no label Argo CD requires). Objects are kept whole (status
 * included: the status writer patches from it; managedFields dropped).
 *
 * `applicationNamespaces` (Argo CD's `--application-namespaces` / argocd-cmd-params-cm
 * `application.namespaces`): Applications of those namespaces too (names, globs or /regexps/, as
 * `glob.MatchStringInList(..., REGEXP)`), as Argo CD's application informer: watched per namespace when
 * every entry is a name, else cluster-wide and filtered here (`isAppNamespaceAllowed`); AppProjects,
 * argocd-cm and Secrets are read in the control-plane namespace only.
 *
 * `start(signal)` resolves once every kind has listed; its ADDED events come first. An Application CRD
 * that is not served is an error (no Argo CD there); a missing AppProject CRD leaves only the built-in
 * `default` project. Events (`onEvent`, synchronous, in order) are raw and typed: parsing and what to do
 * belong to the caller (src/controller/app-controller/run.ts).
 */
import { isNotFound, LiveStateCache } from '../cluster/index.js';
import type { CacheEvent, KubeClient, KubeObject, ResourceInfo } from '../cluster/index.js';
import { GitopsError, oneLine } from '../common/index.js';
import { isLiteralPattern, matchStringInList } from './globs.js';
import { ARGOCD_CM } from './settings.js';

/** Argo CD's label of its cluster and repository Secrets (common/common.go LabelKeySecretType). */
export const SECRET_TYPE_LABEL = 'argocd.argoproj.io/secret-type';

export const APPLICATION_RESOURCE: ResourceInfo = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  kind: 'Application',
  plural: 'applications',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'patch', 'update'],
};
export const APP_PROJECT_RESOURCE: ResourceInfo = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  kind: 'AppProject',
  plural: 'appprojects',
  namespaced: true,
  verbs: ['get', 'list', 'watch'],
};
export const CONFIG_MAPS: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  verbs: ['get', 'list', 'watch'],
};
export const SECRETS: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  verbs: ['get', 'list', 'watch'],
};

export type NamespaceEvent =
  | { type: 'app'; change: 'ADDED' | 'MODIFIED'; object: KubeObject; old?: KubeObject | undefined }
  | { type: 'app-deleted'; object: KubeObject }
  | { type: 'project'; change: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject }
  | { type: 'settings'; change: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject }
  | { type: 'secret'; change: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject; secretType: string };

export interface ArgoNamespaceWatchOptions {
  client: KubeClient;
  namespace: string;
  /** Kube context named in errors. */
  context?: string | undefined;
  onEvent: (event: NamespaceEvent) => void;
  onWarning?: ((message: string) => void) | undefined;
  /** Other namespaces whose Applications are reconciled: names, globs or /regexps/ (see the header). */
  applicationNamespaces?: readonly string[] | undefined;
  /** Watch timeout (tests); default the live cache's. */
  watchTimeoutSeconds?: number | undefined;
}

export class ArgoNamespaceWatch {
  readonly #o: ArgoNamespaceWatchOptions;
  #cache: LiveStateCache | undefined;

  constructor(options: ArgoNamespaceWatchOptions) {
    this.#o = options;
  }

  /** Lists every kind (ADDED events), then keeps watching until `stop` or the signal. */
  async start(signal?: AbortSignal): Promise<void> {
    const o = this.#o;
    const resources = [APPLICATION_RESOURCE, CONFIG_MAPS, SECRETS];
    await this.#probe(APPLICATION_RESOURCE, signal, true);
    if (await this.#probe(APP_PROJECT_RESOURCE, signal, false)) resources.push(APP_PROJECT_RESOURCE);
    const patterns = o.applicationNamespaces ?? [];
    // Applications of other namespaces: each named one, or every namespace (filtered in #allowed).
    const appNamespaces =
      patterns.length === 0
        ? [o.namespace]
        : patterns.every(isLiteralPattern)
          ? [...new Set([o.namespace, ...patterns])]
          : undefined;
    const cache = new LiveStateCache({
      client: o.client,
      resources,
      namespaces: [o.namespace],
      namespaceMode: 'per-namespace',
      byGroupKind: {
        '/Secret': { labelSelector: SECRET_TYPE_LABEL },
        'argoproj.io/Application': { namespaces: appNamespaces },
      },
      ...(o.onWarning ? { onWarning: o.onWarning } : {}),
      ...(o.watchTimeoutSeconds !== undefined ? { watchTimeoutSeconds: o.watchTimeoutSeconds } : {}),
    });
    this.#cache = cache;
    cache.onEvent((e) => this.#dispatch(e));
    await cache.start(signal);
  }

  /** The Application as last seen (status included). */
  application(namespace: string, name: string): KubeObject | undefined {
    if (!this.appNamespaceAllowed(namespace)) return undefined;
    return this.#cache?.get({ group: 'argoproj.io', kind: 'Application', namespace, name });
  }

  applications(): KubeObject[] {
    return (this.#cache?.list('argoproj.io', 'Application') ?? []).filter((a) =>
      this.appNamespaceAllowed(a.metadata?.namespace ?? ''),
    );
  }

  /** Argo CD's `isAppNamespaceAllowed`: the control-plane namespace, or one `applicationNamespaces` matches. */
  appNamespaceAllowed(namespace: string): boolean {
    return (
      namespace === this.#o.namespace || matchStringInList(this.#o.applicationNamespaces ?? [], namespace)
    );
  }

  projects(): KubeObject[] {
    return this.#cache?.list('argoproj.io', 'AppProject') ?? [];
  }

  settings(): KubeObject | undefined {
    return this.#cache?.get({ group: '', kind: 'ConfigMap', namespace: this.#o.namespace, name: ARGOCD_CM });
  }

  secrets(type?: string): KubeObject[] {
    const all = this.#cache?.list('', 'Secret') ?? [];
    return type === undefined ? all : all.filter((s) => s.metadata?.labels?.[SECRET_TYPE_LABEL] === type);
  }

  stop(): void {
    this.#cache?.stop();
  }

  async stopped(): Promise<void> {
    await this.#cache?.stopped();
  }

  /** True when the kind is served; a missing required kind throws the reason. */
  async #probe(info: ResourceInfo, signal: AbortSignal | undefined, required: boolean): Promise<boolean> {
    try {
      await this.#o.client.list(info, {
        namespace: this.#o.namespace,
        limit: 1,
        ...(signal ? { signal } : {}),
      });
      return true;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      if (!required) return false;
      const where = this.#o.context ? ` in context ${this.#o.context}` : '';
      throw new GitopsError(
        `failed to watch Applications: the Application CRD (applications.argoproj.io) is not installed${where}: no Argo CD there`,
        { subject: `namespace ${this.#o.namespace}`, cause: err },
      );
    }
  }

  #dispatch(e: CacheEvent): void {
    const obj = e.object;
    const emit = this.#o.onEvent;
    try {
      if (e.key.group === 'argoproj.io' && e.key.kind === 'Application') {
        if (!this.appNamespaceAllowed(e.key.namespace)) return;
        if (e.type === 'DELETED') emit({ type: 'app-deleted', object: obj });
        else emit({ type: 'app', change: e.type, object: obj, old: e.old });
      } else if (e.key.group === 'argoproj.io' && e.key.kind === 'AppProject') {
        emit({ type: 'project', change: e.type, object: obj });
      } else if (e.key.kind === 'ConfigMap') {
        if (e.key.name === ARGOCD_CM) emit({ type: 'settings', change: e.type, object: obj });
      } else if (e.key.kind === 'Secret') {
        const secretType = obj.metadata?.labels?.[SECRET_TYPE_LABEL];
        if (secretType) emit({ type: 'secret', change: e.type, object: obj, secretType });
      }
    } catch (err) {
      this.#o.onWarning?.(
        `${e.key.kind} ${e.key.namespace}/${e.key.name}: failed to handle ${e.type}: ${oneLine(err)}`,
      );
    }
  }
}
