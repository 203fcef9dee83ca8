/**
 * One batch of cases, run side by side in parallel namespaces (docs/conformance.md "How a run goes"):
 * set-up (namespaces, Argo CD objects, repositories, live objects), then refresh, sync and controller,
 * each phase first on Argo CD's side (`<id>-a`) and then on ours (`<id>-o`, or the same app where the
 * phase compares one Application). Returns the rows of every case and what could not run.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { sideApp, fill, sideName, type Case, type Obj, type Side, type SideValues } from './case.js';
import { CLI, type Env } from './env.js';
import { makeRepo } from './git.js';
import { run } from './kubectl.js';
import { compareFields, normaliseObject, replaceTokens, resourceKey, type Row } from './normalise.js';
import {
  auditWrites,
  controllerView,
  healthAssessed,
  parseAppGetResources,
  refreshViewOfDiff,
  refreshViewOfStatus,
  syncViewOfOperation,
  syncViewOfReport,
  writeList,
} from './views.js';

export interface CaseOutcome {
  id: string;
  name: string;
  family: string;
  phases: string[];
  rows: Row[];
  /** Why a phase (or the case) did not run: `phase: reason`. */
  notRun: string[];
  /** Problems met while running (set-up refusals, timeouts): shown beside the rows. */
  notes: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SideState {
  values: SideValues;
  shas: Map<string, string>;
}

export class Batch {
  readonly outcomes = new Map<string, CaseOutcome>();
  private readonly sides = new Map<string, Record<Side, SideState>>();
  private readonly dir: string;

  constructor(
    readonly env: Env,
    readonly cases: Case[],
    readonly label: string,
  ) {
    this.dir = join(env.work, label);
    mkdirSync(this.dir, { recursive: true });
    for (const c of cases)
      this.outcomes.set(c.id, {
        id: c.id,
        name: c.name,
        family: c.family,
        phases: c.phases,
        rows: [],
        notRun: [],
        notes: [],
      });
  }

  private get argo(): boolean {
    return this.env.mode === 'rig';
  }

  private out(c: Case): CaseOutcome {
    return this.outcomes.get(c.id)!;
  }

  private values(c: Case, side: Side): SideValues {
    const ns = sideName(c, side);
    return {
      ns,
      argocdNs: this.env.argocdNs,
      repoUrl: (name) => `${this.env.gitBaseUrl}/${name === 'main' ? ns : `${ns}-${name}`}.git`,
    };
  }

  /** Each side's names, repository URLs and commits to the case's placeholders. */
  private tokens(c: Case, side: Side): Map<string, string> {
    const st = this.sides.get(c.id)![side];
    const m = new Map<string, string>([[st.values.ns, `${c.id}-X`]]);
    for (const [repo, sha] of st.shas) {
      m.set(sha, `<rev:${repo}>`);
      // Its first 7 characters name generated hooks (gitops-engine sync_context.go: generateName +
      // revision[0:7] + "-" + phase + "-" + the operation's start in Unix seconds) and print in app get.
      m.set(sha.slice(0, 7), `<rev7:${repo}>`);
    }
    return m;
  }

  async setup(): Promise<void> {
    const k = this.env.kubectl;
    const namespaces: Obj[] = [];
    const argocdObjs: Obj[] = [];
    const live = new Map<string, Obj[]>();
    await Promise.all(
      this.cases.map(async (c) => {
        const sides = {} as Record<Side, SideState>;
        for (const side of ['a', 'o'] as Side[]) {
          const values = this.values(c, side);
          const shas = new Map<string, string>();
          shas.set('main', await makeRepo(this.env.gitRoot, values.ns, fill(c.repo, values)));
          for (const [name, files] of Object.entries(c.repos))
            shas.set(name, await makeRepo(this.env.gitRoot, `${values.ns}-${name}`, fill(files, values)));
          sides[side] = { values, shas };
          if (c.createNamespace) namespaces.push(ns(values.ns));
          for (const n of c.namespaces) namespaces.push(ns(fill(n, values)));
          for (const o of c.argocd) argocdObjs.push({ ...fill(o, values) });
          for (const o of c.live) {
            const x = fill(o, values);
            const clusterScoped = [
              'CustomResourceDefinition',
              'APIService',
              'ClusterRole',
              'Namespace',
            ].includes(x.kind);
            if (!clusterScoped) x.metadata = { ...x.metadata, namespace: x.metadata?.namespace ?? values.ns };
            live.set(c.id, [...(live.get(c.id) ?? []), x]);
          }
        }
        this.sides.set(c.id, sides);
      }),
    );
    // What an earlier run left (a run cut short, or a second run on the same rig): the case's Applications
    // (finalizers dropped first), namespaces and cluster-scoped objects go before anything is created.
    const stale = this.cases.flatMap((c) => (['a', 'o'] as Side[]).map((side) => sideName(c, side)));
    const existing = await this.apps(new Map(stale.map((n) => [`${this.env.argocdNs}/${n}`, n])));
    for (const a of existing.values()) {
      const at = ['applications.argoproj.io', '-n', a.metadata.namespace, a.metadata.name];
      await k.run(['patch', ...at, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      await k.run(['delete', ...at, '--ignore-not-found', '--wait=true', '--timeout=60s']);
    }
    const nsNames = [...new Set(namespaces.map((n) => String(n.metadata.name)))];
    if (nsNames.length > 0)
      await k.run(['delete', 'namespace', '--ignore-not-found', '--wait=true', '--timeout=120s', ...nsNames]);
    // Cluster-scoped objects an earlier run's sync created from the repository (a ClusterRole
    // `${NS}-reader`...), so this run's sync creates them again rather than finding them.
    const fromRepo = this.cases.flatMap((c) =>
      (['a', 'o'] as Side[]).flatMap((side) => repoClusterScoped(c, this.sides.get(c.id)![side].values.ns)),
    );
    for (const o of [...[...live.values()].flat().filter((x) => !x.metadata?.namespace), ...fromRepo]) {
      const group = String(o.apiVersion).includes('/') ? String(o.apiVersion).split('/')[0] : '';
      const resource = group ? `${o.kind}.${group}` : String(o.kind);
      await k.run([
        'delete',
        resource,
        String(o.metadata.name),
        '--ignore-not-found',
        '--wait=true',
        '--timeout=60s',
      ]);
    }
    for (const errs of [await k.create(namespaces), await k.create(argocdObjs)])
      this.noteErrors(errs, 'set-up');
    const all = [...live.values()].flat();
    const crds = all.filter((o) => o.kind === 'CustomResourceDefinition');
    const crdErrors = await k.create(crds);
    this.noteErrors(crdErrors, 'set-up');
    for (const c of this.cases.filter((x) => crdErrors.some((e) => e.includes(x.id))))
      this.out(c).notRun.push(SETUP_REFUSED);
    if (crds.length)
      await k.run([
        'wait',
        '--for=condition=Established',
        '--timeout=30s',
        ...crds.map((c) => `crd/${c.metadata.name}`),
      ]);
    // Per case (a refused object names its case), a few kubectl runs at a time.
    await inParallel([...live], 6, async ([id, objs]) => {
      const out = this.outcomes.get(id)!;
      const rest = objs.filter((o) => o.kind !== 'CustomResourceDefinition');
      const refused = [
        ...(await k.create(rest.map(({ status: _s, ...o }) => o))).map((e) => `set-up: ${e}`),
        ...(await k.writeStatuses(objs)).map((e) => `set-up status: ${e}`),
      ];
      out.notes.push(...refused);
      // Never a silent pass: both sides would judge a missing object (or one without its recorded status)
      // alike. The phases still run; the case is listed as not run in part, the notes say what was refused.
      if (refused.length > 0 && !out.notRun.includes(SETUP_REFUSED)) out.notRun.push(SETUP_REFUSED);
    });
    // Live Deployments roll out (kube-controller-manager, the kubelet stand-in's Pods) before either side
    // reads them, so Argo CD's first read and ours, seconds apart, see the same settled state (20 s at most;
    // a Deployment meant never to be available just waits that long).
    const workloadNamespaces = [
      ...new Set(all.filter((o) => o.kind === 'Deployment').map((o) => String(o.metadata?.namespace ?? ''))),
    ].filter(Boolean);
    await inParallel(workloadNamespaces, 6, async (ns) => {
      await k.run(['wait', '--for=condition=Available', 'deployments', '--all', '-n', ns, '--timeout=20s']);
    });
  }

  private noteErrors(errs: string[], what: string): void {
    for (const e of errs) {
      const c = this.cases.find((x) => e.includes(x.id));
      if (c) this.out(c).notes.push(`${what}: ${e}`);
      else for (const c2 of this.cases) this.out(c2).notes.push(`${what} (batch): ${e}`);
    }
  }

  private appOf(c: Case, side: Side): Obj {
    return sideApp(c, this.sides.get(c.id)![side].values);
  }

  private async apps(names: Map<string, string>): Promise<Map<string, Obj>> {
    // Applications of every namespace the batch uses, by namespace/name.
    const all = await this.env.kubectl.getJson(['applications.argoproj.io', '-A']);
    const out = new Map<string, Obj>();
    for (const a of (all?.items ?? []) as Obj[]) {
      const key = `${a.metadata.namespace}/${a.metadata.name}`;
      if (names.has(key)) out.set(key, a);
    }
    return out;
  }

  private key(app: Obj): string {
    return `${app.metadata.namespace}/${app.metadata.name}`;
  }

  /** Waits until `done` holds for every app (or the timeout), returning the last read. */
  private async waitApps(
    apps: Obj[],
    done: (a: Obj) => boolean,
    timeoutMs: number,
  ): Promise<Map<string, Obj>> {
    const names = new Map(apps.map((a) => [this.key(a), a.metadata.name as string]));
    const t0 = Date.now();
    let last = new Map<string, Obj>();
    while (Date.now() - t0 < timeoutMs) {
      last = await this.apps(names);
      if ([...names.keys()].every((k) => last.has(k) && done(last.get(k)!))) return last;
      await sleep(1000);
    }
    return last;
  }

  private runnable(c: Case, phase: string): boolean {
    return c.phases.includes(phase as never) && !this.out(c).notRun.some((n) => n.startsWith('case:'));
  }

  /** Creates every case's `-a` Application; with the rig, waits for Argo CD's first reconcile. */
  async createApps(): Promise<Map<string, Obj>> {
    const apps = this.cases.filter((c) => c.app).map((c) => this.appOf(c, 'a'));
    this.noteErrors(await this.env.kubectl.create(apps), 'create Application');
    if (!this.argo) return new Map();
    const first = await this.waitApps(apps, argoSettled, 120_000);
    // Then a requested refresh, read once Argo CD has done it (it removes the annotation): its first
    // reconcile can run before its cluster cache has the live objects the set-up has just written (seen:
    // health Missing for objects that were there), which is not what a user's settled cluster shows.
    const byNamespace = new Map<string, string[]>();
    for (const a of apps)
      byNamespace.set(a.metadata.namespace, [
        ...(byNamespace.get(a.metadata.namespace) ?? []),
        a.metadata.name,
      ]);
    for (const [ns, names] of byNamespace)
      await this.env.kubectl.run([
        'annotate',
        'applications.argoproj.io',
        '-n',
        ns,
        ...names,
        `${REFRESH_ANNOTATION}=normal`,
        '--overwrite',
      ]);
    const second = await this.waitApps(
      apps,
      (a) => a.metadata?.annotations?.[REFRESH_ANNOTATION] === undefined && argoSettled(a),
      60_000,
    );
    for (const [k, v] of first) if (!second.has(k)) second.set(k, v);
    return second;
  }

  async refresh(argoApps: Map<string, Obj>): Promise<void> {
    const cases = this.cases.filter((c) => this.runnable(c, 'refresh'));
    if (cases.length === 0) return;
    const apps = cases.map((c) => this.appOf(c, 'a'));
    // Resource health: Argo CD 3 keeps it in its resource tree (Redis), not in status; `argocd app get`
    // prints it while Argo CD's controller runs.
    const trees = new Map<string, Map<string, Record<string, string>>>();
    if (this.env.argocd && !Batch.cliBroken)
      await inParallel(apps, 4, async (a) => {
        trees.set(this.key(a), parseAppGetResources(await this.appGet(a)));
      });
    // Apps outside Argo CD's namespace are read from a file (--from-cluster reads Argo CD's namespace only).
    const elsewhere = apps.filter((a) => a.metadata.namespace !== this.env.argocdNs);
    const files: string[] = [];
    if (elsewhere.length) {
      const f = join(this.dir, 'refresh-apps.json');
      writeFileSync(f, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: elsewhere }));
      files.push('-f', f);
    }
    const r = await run(
      CLI,
      [
        'diff',
        '--kubeconfig',
        this.env.ourKubeconfig,
        '--from-cluster',
        '--argocd-namespace',
        this.env.argocdNs,
        ...files,
        '-o',
        'json',
        '--no-exit-code',
        '-q',
        ...apps.map((a) => (a.metadata.namespace === this.env.argocdNs ? a.metadata.name : this.key(a))),
      ],
      { timeoutMs: 300_000 },
    );
    const report = parseJson(r.stdout);
    const byName = new Map<string, Obj>(((report?.apps ?? []) as Obj[]).map((a) => [a.name as string, a]));
    for (const c of cases) {
      const app = this.appOf(c, 'a');
      const ours = byName.get(app.metadata.name);
      const out = this.out(c);
      if (!ours) out.notes.push(`refresh: our diff printed no entry (exit ${r.code}): ${lastLine(r.stderr)}`);
      const argo = argoApps.get(this.key(app));
      const withHealth = Boolean((argo?.status?.resources ?? []).some((x: Obj) => x.health));
      const tokens = this.tokens(c, 'a');
      const oursView = ours ? replaceTokens(refreshViewOfDiff(ours, withHealth), tokens) : undefined;
      if (this.argo) {
        // A spec refusal is a reconcile too: Argo CD writes its condition and no reconcile time
        // (appcontroller.go processAppRefreshQueueItem returns before setting ReconciledAt).
        if (!argo?.status?.reconciledAt && !argo?.status?.conditions?.length)
          out.notes.push('refresh: Argo CD did not reconcile the app in 120 s');
        const argoView = replaceTokens(refreshViewOfStatus(argo?.status), tokens);
        out.rows.push(...compareFields(c.id, 'refresh', '', argoView, oursView));
        const tree = trees.get(this.key(app));
        if (!tree && Batch.cliBroken)
          out.notRun.push(`refresh resource health (argocd app get): ${Batch.cliBroken}`);
        if (tree) {
          const health = (m: Iterable<[string, string | undefined]>) =>
            replaceTokens(Object.fromEntries([...m].filter(([, h]) => h)), tokens);
          const argoEntries = new Map(
            ((argo?.status?.resources ?? []) as Obj[]).map((r) => [resourceKey(r), r] as const),
          );
          const assessed = (k: string) => healthAssessed(argoEntries.get(k), tree.get(k)?.['HEALTH']);
          const argoHealth = health(
            [...tree].filter(([k]) => assessed(k)).map(([k, row]) => [k, row['HEALTH']]),
          );
          const ourHealth = health(
            // argocd-server's Get gives a resource with no live node `Missing` ("Resource has not been
            // created", server/application inferResourcesStatusHealth), as our diff does.
            ((ours?.resources ?? []) as Obj[])
              .filter((r) => assessed(resourceKey(r)))
              .map((r) => [resourceKey(r), r.health ?? undefined]),
          );
          out.rows.push(...compareFields(c.id, 'refresh', 'resourceHealth', argoHealth, ourHealth));
        }
      } else out.rows.push(...compareFields(c.id, 'refresh', '', undefined, oursView));
    }
  }

  private syncFlags(c: Case): string[] {
    const s = c.sync;
    const v = this.sides.get(c.id)!.o.values;
    return [
      ...(s.prune ? ['--prune'] : []),
      ...(s.dryRun ? ['--dry-run'] : []),
      ...(s.strategy ? ['--strategy', s.strategy] : []),
      ...(s.force ? ['--force'] : []),
      ...(s.syncOptions ?? []).flatMap((o) => ['--sync-option', o]),
      ...(s.resources ?? []).flatMap((r) => ['--resource', r.replace(/:([^:]*)$/, `:${v.ns}/$1`)]),
    ];
  }

  private operation(c: Case): Obj {
    const s = c.sync;
    const v = this.sides.get(c.id)!.a.values;
    return {
      sync: {
        ...(s.prune ? { prune: true } : {}),
        ...(s.dryRun ? { dryRun: true } : {}),
        // As argocd-server's Sync: the request's options, or when it sends none, the app's
        // spec.syncPolicy.syncOptions (server/application/application.go `Sync`).
        ...(s.syncOptions?.length
          ? { syncOptions: s.syncOptions }
          : c.app?.spec?.syncPolicy?.syncOptions?.length
            ? { syncOptions: c.app.spec.syncPolicy.syncOptions }
            : {}),
        syncStrategy:
          s.strategy === 'apply'
            ? { apply: { force: Boolean(s.force) } }
            : { hook: { force: Boolean(s.force) } },
        ...(s.resources
          ? {
              resources: s.resources.map((r) => {
                const [group, kind, name] = r.split(':');
                return { group, kind, name, namespace: v.ns };
              }),
            }
          : {}),
      },
      initiatedBy: { username: 'conformance' },
    };
  }

  async sync(): Promise<void> {
    const cases = this.cases.filter((c) => this.runnable(c, 'sync') && c.app);
    if (cases.length === 0) return;
    const auditStart = this.auditSize();
    // Argo CD: an operation on each `-a` app, as `argocd app sync --core` writes it.
    let argoAfter = new Map<string, Obj>();
    if (this.argo) {
      await Promise.all(
        cases.map((c) => {
          const a = this.appOf(c, 'a');
          return this.env.kubectl
            .merge(`applications.argoproj.io/${a.metadata.name}`, a.metadata.namespace, {
              operation: this.operation(c),
            })
            .catch((e: Error) => this.out(c).notes.push(`sync: ${e.message}`));
        }),
      );
      argoAfter = await this.waitApps(
        cases.map((c) => this.appOf(c, 'a')),
        operationEnded,
        240_000,
      );
    }
    // Ours: `kubectl gitops sync -f` on the `-o` twins, one run per set of flags.
    const groups = new Map<string, Case[]>();
    for (const c of cases) {
      // Flags naming a resource are the case's own: such a case runs alone.
      const k = c.sync.resources ? c.id : JSON.stringify(this.syncFlags(c));
      groups.set(k, [...(groups.get(k) ?? []), c]);
    }
    const ourApps = new Map<string, Obj>();
    const cmFile = await this.argocdCmFile();
    let g = 0;
    for (const group of groups.values()) {
      g++;
      const appsFile = join(this.dir, `sync-apps-${g}.json`);
      const projFile = join(this.dir, `sync-projects-${g}.json`);
      const apps = group.map((c) => this.appOf(c, 'o'));
      writeFileSync(appsFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: apps }));
      const projects = group.flatMap((c) => c.argocd.map((o) => fill(o, this.sides.get(c.id)!.o.values)));
      const projArgs: string[] = [];
      if (projects.some((p) => p.kind === 'AppProject')) {
        writeFileSync(
          projFile,
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'List',
            items: projects.filter((p) => p.kind === 'AppProject'),
          }),
        );
        projArgs.push('--project-file', projFile);
      }
      const r = await run(
        CLI,
        [
          'sync',
          '--kubeconfig',
          this.env.ourKubeconfig,
          '--argocd-namespace',
          this.env.argocdNs,
          '-f',
          appsFile,
          ...projArgs,
          '--argocd-cm',
          cmFile,
          '-o',
          'json',
          '-q',
          '--async',
          '--timeout',
          '3m',
          '--operation-processors',
          '4',
          ...this.syncFlags(group[0]!),
        ],
        { timeoutMs: 240_000 },
      );
      const report = parseJson(r.stdout);
      for (const a of (report?.apps ?? []) as Obj[]) ourApps.set(a.name, a);
      for (const c of group)
        if (!ourApps.has(sideName(c, 'o')))
          this.out(c).notes.push(`sync: our sync printed no entry (exit ${r.code}): ${lastLine(r.stderr)}`);
    }
    const auditLines = this.auditSince(auditStart);
    await inParallel(cases, 6, async (c) => {
      const out = this.out(c);
      const ta = this.tokens(c, 'a');
      const to = this.tokens(c, 'o');
      const ours = ourApps.get(sideName(c, 'o'));
      const oursView = ours ? replaceTokens(syncViewOfReport(ours), to) : undefined;
      const argo = argoAfter.get(this.key(this.appOf(c, 'a')));
      const argoView = this.argo
        ? replaceTokens(syncViewOfOperation(argo?.status?.operationState), ta)
        : undefined;
      out.rows.push(...compareFields(c.id, 'sync', '', argoView, oursView));
      if (auditLines && this.env.auditUser) {
        // Dry runs are not compared: ours are sent to the server for every task, Argo CD's are client-side
        // (a deliberate departure, docs/conformance.md); how many each side sent is noted.
        const writes = (side: Side) => auditWrites(auditLines!, this.env.auditUser!, sideName(c, side));
        const [all_a, all_o] = [writes('a'), writes('o')];
        const dry = (w: readonly { dryRun?: boolean }[]) => w.filter((x) => x.dryRun).length;
        if (dry(all_a) + dry(all_o) > 0)
          out.notes.push(`sync: dry-run writes not compared (Argo CD ${dry(all_a)}, ours ${dry(all_o)})`);
        const wa = replaceTokens(writeList(all_a.filter((w) => !w.dryRun)), ta);
        const wo = replaceTokens(writeList(all_o.filter((w) => !w.dryRun)), to);
        out.rows.push(...compareFields(c.id, 'sync', 'writes', wa, wo));
      }
      out.rows.push(...(await this.compareLive(c, argo, ours, ta, to)));
    });
  }

  /** The final live objects of both sides: every resource either sync result names, plus the case's live ones. */
  private async compareLive(
    c: Case,
    argo: Obj | undefined,
    ours: Obj | undefined,
    ta: Map<string, string>,
    to: Map<string, string>,
  ): Promise<Row[]> {
    const refs = new Map<string, Obj>();
    const add = (r: Obj, tokens: Map<string, string>) => {
      if (!r.kind || !r.name) return;
      const norm = replaceTokens(
        { group: r.group ?? '', kind: r.kind, namespace: r.namespace ?? '', name: r.name },
        tokens,
      );
      refs.set(`${norm.group}/${norm.kind}/${norm.namespace}/${norm.name}`, norm);
    };
    for (const r of (argo?.status?.operationState?.syncResult?.resources ?? []) as Obj[]) add(r, ta);
    for (const r of (ours?.resources ?? []) as Obj[]) add(r, to);
    for (const o of c.live)
      add(
        {
          group: o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '',
          kind: o.kind,
          namespace: o.metadata.namespace ?? '${NS}',
          name: o.metadata.name,
        },
        new Map([
          ['${NS}', `${c.id}-X`],
          ['${APP}', `${c.id}-X`],
        ]),
      );
    const rows: Row[] = [];
    for (const [key, r] of [...refs].sort()) {
      const get = async (side: Side) => {
        const back = new Map([[`${c.id}-X`, sideName(c, side)]]);
        const x = replaceTokens(r, back);
        const kind = x.group ? `${x.kind}.${x.group}` : x.kind;
        if (x.name.startsWith('gen-')) return undefined; // generateName hooks: names differ by design
        const read = () =>
          this.env.kubectl.getJson([kind, x.name, ...(x.namespace ? ['-n', x.namespace] : [])]);
        let obj = await read();
        // A Deployment's status is kube-controller-manager's, not the sync's: each side's is read once that
        // controller has caught up with the last write (10 s at most), so the side whose sync ended last is
        // not read mid-scale (c097-c105: Argo CD's read 2 replicas, ours 5, a second apart).
        for (let i = 0; i < 40 && obj && x.kind === 'Deployment' && !deploymentSettled(obj); i++) {
          await new Promise((r) => setTimeout(r, 250));
          obj = await read();
        }
        return obj ? replaceTokens(normaliseObject(obj), side === 'a' ? ta : to) : undefined;
      };
      const [a, o] = await Promise.all([this.argo ? get('a') : Promise.resolve(undefined), get('o')]);
      rows.push(
        ...compareFields(c.id, 'sync', `live[${key}]`, a ?? (this.argo ? null : undefined), o ?? null),
      );
    }
    return rows;
  }

  private auditSize(): number {
    try {
      return this.env.auditLog ? statSync(this.env.auditLog).size : 0;
    } catch {
      return 0;
    }
  }

  private auditSince(offset: number): string[] | undefined {
    if (!this.env.auditLog) return undefined;
    const buf = readFileSync(this.env.auditLog);
    return buf.subarray(offset).toString('utf8').split('\n');
  }

  private async argocdCmFile(): Promise<string> {
    const f = join(this.dir, 'argocd-cm.json');
    const cmObj = await this.env.kubectl.getJson(['configmap', 'argocd-cm', '-n', this.env.argocdNs]);
    writeFileSync(
      f,
      JSON.stringify(
        cmObj ?? { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-cm' }, data: {} },
      ),
    );
    return f;
  }

  /** Argo CD's status (read before its controller stops) against the status our controller writes. */
  async controller(): Promise<void> {
    // Apps outside Argo CD's namespace too: both controllers read the rig's argocd-cmd-params-cm
    // `application.namespaces` (Argo CD's as flags, ours from the ConfigMap).
    const cases = this.cases.filter((c) => this.runnable(c, 'controller') && c.app);
    if (cases.length === 0) return;
    const k = this.env.kubectl;
    const same = cases.filter((c) => !isAuto(c));
    const twins = cases.filter(isAuto);
    const aApps = cases.map((c) => this.appOf(c, 'a'));
    let argoStatus = new Map<string, Obj>();
    const argoText = new Map<string, string>();
    if (this.argo) {
      // Auto-sync apps: wait for Argo CD's automated sync to end.
      argoStatus = await this.waitApps(
        aApps,
        (a) =>
          !a.operation && a.status?.operationState?.phase !== 'Running' && Boolean(a.status?.reconciledAt),
        120_000,
      );
      await inParallel(aApps, 4, async (a) => {
        argoText.set(this.key(a), await this.appGet(a));
      });
      argoText.set('list', await this.appList());
      await this.env.controller('stop');
    }
    // Ours: the same apps, and new `-o` twins of the auto-sync cases, created only now so that only our
    // controller syncs them.
    const oApps = twins.map((c) => this.appOf(c, 'o'));
    this.noteErrors(await k.create(oApps), 'controller: create twin');
    const ourTargets = [...same.map((c) => this.appOf(c, 'a')), ...oApps];
    const child = spawn(
      CLI,
      [
        'controller',
        '--kubeconfig',
        this.env.ourKubeconfig,
        '--argocd-namespace',
        this.env.argocdNs,
        '-o',
        'json',
        '--app-resync',
        '0',
        '--force-takeover',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // Done when our controller's log says each app was refreshed (after its operation, for auto-sync twins):
    // a refresh that changes nothing writes no status, so the status alone cannot say it.
    const pending = new Map(ourTargets.map((a) => [a.metadata.name as string, isAutoApp(a)]));
    let stderr = '';
    let buf = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    let lastEventAt = Date.now();
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      lastEventAt = Date.now();
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) {
        const e = parseJson(l);
        const name = String(e?.app ?? e?.key ?? '')
          .split('/')
          .pop()!;
        if (!pending.has(name)) continue;
        const ev = String(e?.event);
        // An app is done once refreshed; an auto-sync twin once refreshed after its operation ended, or
        // when auto-sync declined to run (which follows its refresh).
        if (ev === 'refreshed' && (!pending.get(name) || seenOp.has(name))) pending.delete(name);
        if (ev === 'operation-done') seenOp.add(name);
        if (ev === 'auto-sync-skipped') pending.delete(name);
      }
    });
    const seenOp = new Set<string>();
    const t0 = Date.now();
    while (pending.size > 0 && Date.now() - t0 < 150_000 && child.exitCode === null) await sleep(500);
    // Then until the controller has been quiet for 10 s (40 s at most): a refresh can ask for another (a
    // live cache widened to a namespace an app's resources live in), as Argo CD's controller writes more
    // than once; the status write follows the last refresh.
    const t1 = Date.now();
    while (Date.now() - lastEventAt < 10_000 && Date.now() - t1 < 40_000 && child.exitCode === null)
      await sleep(500);
    await sleep(2000);
    const settled = await this.apps(new Map(ourTargets.map((a) => [this.key(a), a.metadata.name])));
    const oursText = new Map<string, string>();
    if (this.argo) {
      await inParallel(ourTargets, 4, async (a) => {
        oursText.set(this.key(a), await this.appGet(a));
      });
      oursText.set('list', await this.appList());
    }
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    if (this.argo) await this.env.controller('start');
    for (const c of cases) {
      const out = this.out(c);
      const a = this.appOf(c, 'a');
      const o = isAuto(c) ? this.appOf(c, 'o') : a;
      const mine = settled.get(this.key(o));
      if (pending.has(o.metadata.name))
        out.notes.push(
          `controller: our controller did not refresh ${this.key(o)} in 150 s: ${lastLine(stderr)}`,
        );
      const ta = this.tokens(c, 'a');
      const to = isAuto(c) ? this.tokens(c, 'o') : ta;
      const oursView = replaceTokens(controllerView(mine?.status), to);
      const argoView = this.argo
        ? replaceTokens(controllerView(argoStatus.get(this.key(a))?.status), ta)
        : undefined;
      out.rows.push(...compareFields(c.id, 'controller', 'status', argoView, oursView));
      if (this.argo && Batch.cliBroken) out.notRun.push(`controller argocd app get/list: ${Batch.cliBroken}`);
      else if (this.argo) {
        out.rows.push(
          ...compareFields(
            c.id,
            'controller',
            'app get',
            textLines(argoText.get(this.key(a)), ta),
            textLines(oursText.get(this.key(o)), to),
          ),
        );
      }
    }
    if (this.argo && cases[0] && !Batch.cliBroken) {
      const la = appListLines(argoText.get('list'), new Set(same.map((c) => sideName(c, 'a'))));
      const lo = appListLines(oursText.get('list'), new Set(same.map((c) => sideName(c, 'a'))));
      for (const c of same) {
        const n = sideName(c, 'a');
        this.out(c).rows.push(...compareFields(c.id, 'controller', 'app list', la.get(n), lo.get(n)));
      }
    }
    // Twins are ours only: remove them so Argo CD's controller never syncs them.
    await k.run([
      'delete',
      'applications.argoproj.io',
      '-n',
      this.env.argocdNs,
      '--wait=false',
      ...oApps.map((a) => a.metadata.name),
    ]);
  }

  /** Why Argo CD's CLI cannot be used in core mode here, once a call has shown it (then no more calls). */
  static cliBroken: string | undefined;

  private async argocdCli(args: string[]): Promise<string | undefined> {
    if (!this.env.argocd || Batch.cliBroken) return undefined;
    // Through argocd-server when the rig runs it (its Get fills resource health from the tree in Redis);
    // else core mode, which needs a Redis Pod to port-forward to.
    const connection = this.env.argocdServer
      ? ['--server', this.env.argocdServer, '--plaintext']
      : ['--core'];
    const r = await run(this.env.argocd, [...args, ...connection], {
      env: { KUBECONFIG: this.env.argocdKubeconfig ?? '', ARGOCD_NAMESPACE: this.env.argocdNs },
      timeoutMs: 20_000,
    });
    if (r.code === 0) return r.stdout;
    if (/killed after/.test(r.stderr))
      Batch.cliBroken =
        "argocd's core mode did not answer in 20 s: it port-forwards to a Redis pod (app.kubernetes.io/name=argocd-redis) for the resource tree, and the rig runs Redis as a process";
    return `error: ${lastLine(r.stderr)}`;
  }

  private async appGet(app: Obj): Promise<string> {
    const args = [
      'app',
      'get',
      app.metadata.name,
      '--app-namespace',
      app.metadata.namespace,
      '--show-operation',
    ];
    return (await this.argocdCli(args)) ?? '';
  }

  private async appList(): Promise<string> {
    return (await this.argocdCli(['app', 'list'])) ?? '';
  }

  /** Removes the batch's Applications (finalizers first), so Argo CD stops working on them. */
  async cleanup(): Promise<void> {
    const byNs = new Map<string, string[]>();
    for (const c of this.cases)
      if (c.app)
        for (const side of ['a', 'o'] as Side[]) {
          const a = this.appOf(c, side);
          byNs.set(a.metadata.namespace, [...(byNs.get(a.metadata.namespace) ?? []), a.metadata.name]);
        }
    for (const [ns, names] of byNs)
      await this.env.kubectl.run([
        'delete',
        'applications.argoproj.io',
        '-n',
        ns,
        '--ignore-not-found',
        '--wait=false',
        ...names,
      ]);
  }
}

async function inParallel<T>(items: T[], width: number, f: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await f(items[next++]!);
    }),
  );
}

const REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh';

/** A case whose live set-up the API server refused (its notes say what): never a silent pass. */
/** A Deployment whose controller has seen its last spec and brought its replicas to it. */
function deploymentSettled(d: Obj): boolean {
  const want = d.spec?.replicas ?? 1;
  const st = d.status ?? {};
  return (
    (st.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    (st.replicas ?? 0) === want &&
    (st.updatedReplicas ?? 0) === want
  );
}

const SETUP_REFUSED = 'set-up: the API server refused a live object or its status (notes say which)';

/** Kinds that are cluster-scoped, of those a case's repository may hold. */
const CLUSTER_SCOPED = new Set([
  'APIService',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'IngressClass',
  'MutatingWebhookConfiguration',
  'Namespace',
  'PersistentVolume',
  'PriorityClass',
  'StorageClass',
  'ValidatingWebhookConfiguration',
]);

/**
 * The cluster-scoped objects of a case's plain YAML files (its main repository, filled for the side) that
 * carry the side's name: what its sync creates outside its namespaces. Rendered sources (Helm, kustomize,
 * jsonnet) and files that do not parse are left out.
 */
export function repoClusterScoped(c: Case, ns: string): Obj[] {
  const out: Obj[] = [];
  for (const [path, text] of Object.entries(c.repo)) {
    if (!/\.ya?ml$/.test(path) || /kustomization\.ya?ml$|Chart\.yaml$|values/.test(path)) continue;
    let docs: unknown[];
    try {
      docs = parseAllDocuments(text.replaceAll('${NS}', ns).replaceAll('${APP}', ns)).map((d) => d.toJS());
    } catch {
      continue;
    }
    for (const d of docs) {
      const o = d as Obj | null;
      if (o && CLUSTER_SCOPED.has(String(o.kind)) && String(o.metadata?.name ?? '').includes(ns))
        out.push({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name } });
    }
  }
  return out;
}

function ns(name: string): Obj {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/**
 * Argo CD is done with an app: a sync status, no operation running, a refresh after the last operation,
 * and a reconcile time, or conditions (a spec refusal writes its condition and no reconcile time:
 * appcontroller.go processAppRefreshQueueItem returns before setting ReconciledAt).
 */
export function argoSettled(a: Obj): boolean {
  const s = a.status;
  if (!s?.sync?.status) return false;
  if (s.operationState?.phase === 'Running')
    return /blocked by sync window/.test(String(s.operationState.message ?? ''));
  if (a.operation) return false;
  const finished = s.operationState?.finishedAt as string | undefined;
  if (finished && s.reconciledAt && String(s.reconciledAt) < finished) return false;
  return Boolean(s.reconciledAt || s.conditions?.length);
}

/**
 * Argo CD's operation has ended, or will not move: a sync window holds it Running ("Sync operation blocked
 * by sync window") until the window opens (controller/sync.go), which our CLI reports as a refusal.
 */
export function operationEnded(a: Obj): boolean {
  const op = a.status?.operationState;
  if (op?.phase === 'Running' && /blocked by sync window/.test(String(op.message ?? ''))) return true;
  return !a.operation && ['Succeeded', 'Failed', 'Error'].includes(op?.phase);
}

function isAuto(c: Case): boolean {
  return Boolean(c.app?.spec?.syncPolicy?.automated);
}

function isAutoApp(a: Obj): boolean {
  return Boolean(a.spec?.syncPolicy?.automated);
}

function parseJson(text: string): Obj | undefined {
  try {
    return JSON.parse(text) as Obj;
  } catch {
    return undefined;
  }
}

function lastLine(s: string): string {
  return s.trim().split('\n').slice(-1)[0] ?? '';
}

/** `argocd app get` text: lines with times and durations masked, tokens replaced. */
export function textLines(text: string | undefined, tokens: Map<string, string>): string[] | undefined {
  if (text === undefined) return undefined;
  return replaceTokens(
    text
      .split('\n')
      .map((l) =>
        l
          .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d( [+-]\d{4} \w+|Z|[+-]\d\d:\d\d)?/g, '<time>')
          // Go durations, compound ones too ("6m21s", "1h0m5s").
          .replace(/\b(\d+(\.\d+)?(ms|s|m|h))+\b/g, '<dur>')
          .replace(/\s+$/, ''),
      )
      .filter((l) => l !== ''),
    tokens,
  );
}

/** `argocd app list` rows by app name (the NAME column, `argocd/<name>`), whitespace collapsed. */
export function appListLines(text: string | undefined, names: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of (text ?? '').split('\n')) {
    const first = line.split(/\s+/)[0] ?? '';
    const name = first.includes('/') ? first.split('/')[1]! : first;
    if (names.has(name))
      out.set(
        name,
        line
          .replace(/\s+/g, ' ')
          .trim()
          .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4} \w+/g, '<time>'),
      );
  }
  return out;
}
