/**
 * Rendered manifests against Argo CD's, object for object (issue 30): the project's Helm charts and
 * kustomizations (test/fixtures/helm/charts, test/fixtures/kustomize) are pushed to the conformance rig's
 * Git server as one repository, one Application per case is created in the rig's Argo CD (names
 * `<prefix><case>`, default prefix `rm-`), and each case's manifests as Argo CD 3.6.1's repo-server renders
 * them (`argocd app manifests <app> --source git --revision main`: the repo-server's answer, hooks
 * included; without `--revision` the CLI prints the controller's managed resources, hooks left out) are compared with `kubectl gitops render` of the same
 * Application (bin/dev.js, from this checkout). The Applications, their namespaces' absence aside, and the
 * repository are removed at the end.
 *
 * Normalised before comparing, as Argo CD applies manifests: `metadata.namespace` equal to the app's
 * destination namespace is dropped on both sides (Argo CD's repo-server leaves a namespaced object without
 * one and its controller places it there; `render` prints it placed). Objects are matched by
 * group/kind/namespace/name; every field of each is compared (JSON with sorted keys), and the order of the
 * objects is reported. Cases whose chart reads `.Capabilities` without setting `helm.kubeVersion` differ by
 * design: Argo CD passes the destination cluster's version and API versions, `render` reads no cluster;
 * the `cluster` cases run our side as `kubectl gitops diff -o json` against the rig's cluster instead (the
 * objects rebuilt from the diff's additions; the diff's order is ours by group/kind/namespace/name).
 *
 * The rig's argocd-cm is shared with the corpus, which sets tracking methods and kustomize options for its
 * cases: the comparison assumes Argo CD's defaults, and says when argocd-cm held render settings.
 *
 * The repository cases (conformance/manifests-cases.ts) serve charts on loopback from this process (an HTTP
 * chart repository, with and without Basic auth) and from Debian's `docker-registry` (OCI, with and without
 * auth), create Argo CD repository Secrets `<prefix>*` in the rig's Argo CD namespace (our side reads the same
 * Secrets from a `--repositories-file`), and set argocd-cm keys a case needs (`kustomize.buildOptions`) for
 * that case only, restoring them after. Every command runs asynchronously: the chart repository is served
 * by this process's event loop.
 *
 * Usage: `node --import tsx conformance/manifests.ts [--rig conformance/.work/rig.json] [--prefix rm-] [--keep]`
 * (the rig: docs/conformance.md). Prints one line per case and a summary; exit 1 when a case differs.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { bundledToolPath } from '../src/source/render/tool-versions.js';
import { GIT_CASES, chartServers, type ManifestCase, type Obj } from './manifests-cases.js';

const here = dirname(fileURLToPath(import.meta.url));
const project = resolve(here, '..');
const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
};
const rig = JSON.parse(readFileSync(arg('rig', join(project, 'conformance/.work/rig.json')), 'utf8')) as {
  argocd: string;
  argocdServer: string;
  gitRoot: string;
  gitBaseUrl: string;
  kubeconfig: string;
  argocdNamespace: string;
};
const prefix = arg('prefix', 'rm-');
const repoName = `${prefix}manifests`;
const repoURL = `${rig.gitBaseUrl}/${repoName}.git`;

function sh(command: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): string {
  return execFileSync(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {}),
  });
}

const kubectl = (...args: string[]) => sh('kubectl', args, { KUBECONFIG: rig.kubeconfig });

/** `sh` without blocking the event loop (which serves the chart repository the command may read). */
async function run(command: string, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    cwd: project,
  });
  return stdout;
}

/** Our CLI (this checkout's bin/dev.js) with `args`. */
const ours = (args: string[]): Promise<string> =>
  run(process.execPath, ['--import', 'tsx', join(project, 'bin/dev.js'), ...args]);

const lastLine = (err: unknown): string =>
  String((err as { stderr?: string }).stderr || err)
    .trim()
    .split('\n')
    .pop() ?? '';

function application(c: ManifestCase): Obj {
  const git = { repoURL, targetRevision: 'main' };
  const sources =
    c.sources ??
    (c.ref
      ? [
          { ...git, ...c.source },
          { ...git, ref: c.ref },
        ]
      : undefined);
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: `${prefix}${c.name}`, namespace: rig.argocdNamespace },
    spec: {
      project: 'default',
      ...(sources ? { sources } : { source: { ...git, ...c.source } }),
      destination: { server: 'https://kubernetes.default.svc', namespace: `${prefix}${c.name}` },
    },
  };
}

const isHook = (o: Obj): boolean => {
  const annotations = ((o['metadata'] as Obj | undefined)?.['annotations'] ?? {}) as Obj;
  return 'helm.sh/hook' in annotations || 'argocd.argoproj.io/hook' in annotations;
};

function docs(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as unknown)
    .filter((d): d is Obj => d !== null && typeof d === 'object');
}

const sortKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys((v as Obj)[k])]),
        )
      : v;

function keyed(objects: Obj[], dest: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of objects) {
    const meta = { ...((o['metadata'] as Obj | undefined) ?? {}) };
    if (meta['namespace'] === dest) delete meta['namespace'];
    const obj = { ...o, metadata: meta };
    const group = String(o['apiVersion'] ?? '').includes('/') ? String(o['apiVersion']).split('/')[0] : '';
    out.set(
      `${group}/${String(o['kind'])}/${String(meta['namespace'] ?? '')}/${String(meta['name'])}`,
      JSON.stringify(sortKeys(obj)),
    );
  }
  return out;
}

/** The fields of two JSON texts that differ, as `path: ours != Argo CD's` (at most a few). */
function fieldDiffs(ours: string, theirs: string): string[] {
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (out.length >= 5) return;
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) === !Array.isArray(b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
        walk((a as Obj)[k], (b as Obj)[k], `${path}.${k}`);
    } else if (JSON.stringify(a) !== JSON.stringify(b))
      out.push(`${path}: ours ${JSON.stringify(a)} != Argo CD ${JSON.stringify(b)}`);
  };
  walk(JSON.parse(ours), JSON.parse(theirs), '');
  return out;
}

/**
 * Our desired state of an app with its destination cluster known: `kubectl gitops diff -o json` against
 * the rig's cluster, each resource (none is live: the cases are never synced) rebuilt from its `ADD`
 * changes, in the diff's order.
 */
async function ourTargets(appFile: string, extra: string[]): Promise<Obj[]> {
  let out: string;
  try {
    out = await ours([
      'diff',
      '-f',
      appFile,
      '--kubeconfig',
      rig.kubeconfig,
      '-o',
      'json',
      '--quiet',
      ...extra,
    ]);
  } catch (err) {
    // Exit 1: differences found (every resource is missing from the cluster).
    out = String((err as { stdout?: string }).stdout ?? '');
    if (!out.trim()) throw err;
  }
  const report = JSON.parse(out) as {
    apps: { resources: { changes: { type: string; key: string; value: unknown }[] }[] }[];
  };
  return report.apps[0]!.resources.map((r) =>
    Object.fromEntries(r.changes.filter((ch) => ch.type === 'ADD').map((ch) => [ch.key, ch.value])),
  );
}

/** Argo CD's rendering of a case: `argocd app manifests --source git` at the source's revision. */
async function theirTargets(c: ManifestCase, app: Obj): Promise<{ objects?: Obj[]; failure: string }> {
  const spec = app['spec'] as Obj;
  const source = (spec['source'] ?? (spec['sources'] as Obj[])[0]) as Obj;
  // A revision makes the CLI ask the repo-server (without one it prints the controller's managed
  // resources, hooks left out). A multi-source app's request renders each source at its own targetRevision
  // (server/application GetManifests), whatever revision is named.
  const revision = ['--revision', String(source['targetRevision'])];
  let failure = '';
  // The CLI reads the app's managed resources first: the controller must have refreshed it once.
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      const text = await run(rig.argocd, [
        '--server',
        rig.argocdServer,
        '--plaintext',
        'app',
        'manifests',
        `${prefix}${c.name}`,
        '--source',
        'git',
        ...revision,
      ]);
      return { objects: docs(text), failure };
    } catch (err) {
      failure = lastLine(err);
      if (!failure.includes('key is missing')) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  return { failure };
}

/** Sets argocd-cm `data` keys (null: removes one); returns the keys' earlier values. */
function setArgocdCm(data: Record<string, string | null>): Record<string, string | null> {
  const cm = JSON.parse(
    kubectl('get', 'configmap', 'argocd-cm', '-n', rig.argocdNamespace, '-o', 'json'),
  ) as {
    data?: Record<string, string>;
  };
  const earlier = Object.fromEntries(Object.keys(data).map((k) => [k, cm.data?.[k] ?? null]));
  kubectl(
    'patch',
    'configmap',
    'argocd-cm',
    '-n',
    rig.argocdNamespace,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ data }),
  );
  return earlier;
}

/** argocd-cm keys that change what Argo CD renders or stamps (the rig's argocd-cm is shared with the corpus). */
function renderSettings(): string {
  const data = JSON.parse(
    kubectl('get', 'configmap', 'argocd-cm', '-n', rig.argocdNamespace, '-o', 'json'),
  ) as {
    data?: Record<string, string>;
  };
  return Object.entries(data.data ?? {})
    .filter(([k]) => /^(application\.(resourceTrackingMethod|instanceLabelKey)|kustomize\.|helm\.)/.test(k))
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

async function main(): Promise<void> {
  const before = renderSettings();
  const work = mkdtempSync(join(tmpdir(), 'kg-manifests-'));
  const servers = await chartServers(bundledToolPath('helm'), prefix, rig.argocdNamespace, repoURL);
  const cases = [...GIT_CASES, ...servers.cases];
  const repo = join(work, 'repo');
  cpSync(join(project, 'test/fixtures/helm/charts'), join(repo, 'charts'), { recursive: true });
  cpSync(join(project, 'test/fixtures/kustomize'), join(repo, 'kustomize'), { recursive: true });
  for (const [path, text] of Object.entries(servers.files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  const bare = join(rig.gitRoot, `${repoName}.git`);
  const who = {
    GIT_AUTHOR_NAME: 'c',
    GIT_AUTHOR_EMAIL: 'c@c',
    GIT_COMMITTER_NAME: 'c',
    GIT_COMMITTER_EMAIL: 'c@c',
  };
  sh('git', ['init', '-q', '-b', 'main'], who, repo);
  sh('git', ['add', '-A'], who, repo);
  sh('git', ['commit', '-q', '-m', 'manifests cases'], who, repo);
  rmSync(bare, { recursive: true, force: true });
  sh('git', ['clone', '-q', '--bare', repo, bare]);
  const apps = cases.map(application);
  const appsFile = join(work, 'apps.yaml');
  writeFileSync(appsFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: apps }));
  // The repository Secrets: in Argo CD's namespace for Argo CD, in a file for ours.
  const secretsFile = join(work, 'repositories.yaml');
  writeFileSync(secretsFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: servers.secrets }));
  const repositories = ['--repositories-file', secretsFile];
  let differ = 0;
  let expected = 0;
  let objects = 0;
  let identical = 0;
  try {
    kubectl('apply', '-f', secretsFile);
    kubectl('apply', '-f', appsFile);
    for (const c of cases) {
      const name = `${prefix}${c.name}`;
      const app = application(c);
      const appFile = join(work, `${c.name}.yaml`);
      writeFileSync(appFile, JSON.stringify(app));
      const extra = [...repositories];
      let restore: Record<string, string | null> | undefined;
      if (c.argocdCm) {
        restore = setArgocdCm(c.argocdCm);
        const cmFile = join(work, `${c.name}-argocd-cm.yaml`);
        writeFileSync(
          cmFile,
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'argocd-cm', namespace: rig.argocdNamespace },
            data: c.argocdCm,
          }),
        );
        extra.push('--argocd-cm', cmFile);
        // argocd-server and the controller read argocd-cm through informers.
        await new Promise((r) => setTimeout(r, 3000));
      }
      let result: { objects?: Obj[]; failure: string };
      let mine: Obj[] | string;
      try {
        result = await theirTargets(c, app);
        mine = await (
          c.cluster
            ? ourTargets(appFile, extra)
            : ours(['render', '-f', appFile, '--quiet', ...extra]).then(docs)
        ).catch((err: unknown) => `render failed: ${lastLine(err)}`);
      } finally {
        if (restore) setArgocdCm(restore);
      }
      let theirs = result.objects;
      if (!theirs) {
        console.log(
          `${c.name}: Argo CD failed: ${result.failure}${typeof mine === 'string' ? `; ours: ${mine}` : ''}`,
        );
        differ++;
        continue;
      }
      if (typeof mine === 'string') {
        console.log(`${c.name}: ${mine}`);
        differ++;
        continue;
      }
      // `diff` reports the app's resources, as Argo CD's managed resources: hooks are not among them.
      if (c.cluster) theirs = theirs.filter((o) => !isHook(o));
      const a = keyed(mine, name);
      const b = keyed(theirs, name);
      const lines: string[] = [];
      for (const k of new Set([...a.keys(), ...b.keys()])) {
        objects++;
        const x = a.get(k);
        const y = b.get(k);
        if (x === y) identical++;
        else if (!x) lines.push(`  ${k}: only in Argo CD's`);
        else if (!y) lines.push(`  ${k}: only in ours`);
        else lines.push(`  ${k}:`, ...fieldDiffs(x, y).map((d) => `    ${d}`));
      }
      const order = [...a.keys()].join() === [...b.keys()].join() ? 'same order' : 'different order';
      const verdict =
        lines.length === 0 ? 'identical' : c.expected ? `different as expected (${c.expected})` : 'DIFFERENT';
      console.log(`${c.name}: ${verdict} (${a.size} objects ours, ${b.size} Argo CD's, ${order})`);
      for (const l of lines) console.log(l);
      if (lines.length && c.expected) expected++;
      else if (lines.length) differ++;
    }
  } finally {
    if (!process.argv.includes('--keep')) {
      for (const file of [appsFile, secretsFile])
        try {
          kubectl('delete', '-f', file, '--wait=false');
        } catch {
          // already gone
        }
      rmSync(bare, { recursive: true, force: true });
    }
    await servers.close();
    rmSync(work, { recursive: true, force: true });
  }
  const after = renderSettings();
  if (before || after)
    console.log(
      `\nargocd-cm holds render settings (before: ${before || 'none'}; after: ${after || 'none'}): the comparison assumes Argo CD's defaults`,
    );
  console.log(
    `\n${cases.length} cases: ${cases.length - differ - expected} identical, ${expected} different as expected, ${differ} different; ${objects} objects, ${identical} identical`,
  );
  process.exitCode = differ ? 1 : 0;
}

await main();
