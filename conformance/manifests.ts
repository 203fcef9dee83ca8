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
 * Usage: `node --import tsx conformance/manifests.ts [--rig conformance/.work/rig.json] [--prefix rm-] [--keep]`
 * (the rig: docs/conformance.md). Prints one line per case and a summary; exit 1 when a case differs.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

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

type Obj = Record<string, unknown>;

/** The cases: a source (path and options) each; the destination namespace is the app's name. */
const CASES: { name: string; source: Obj; expected?: string; cluster?: boolean; ref?: string }[] = [
  // Ours through `diff` against the rig's cluster: the destination cluster's version and API versions.
  { name: 'helm-cluster-facts', source: { path: 'charts/capabilities' }, cluster: true },
  { name: 'helm-cluster-web', source: { path: 'charts/web' }, cluster: true },
  {
    name: 'helm-defaults',
    source: { path: 'charts/web' },
    expected:
      "render reads no cluster: .Capabilities.KubeVersion is helm's default, Argo CD's is the cluster's",
  },
  {
    name: 'helm-values',
    source: {
      path: 'charts/web',
      helm: {
        releaseName: 'rel',
        valueFiles: ['values-prod.yaml', 'missing.yaml'],
        ignoreMissingValueFiles: true,
        values: 'message: from values\nlist: [a, b]\n',
        parameters: [
          { name: 'replicas', value: '4' },
          { name: 'image', value: 'nginx:1.28,x', forceString: true },
        ],
        kubeVersion: '1.31.2',
        apiVersions: ['monitoring.coreos.com/v1'],
      },
    },
  },
  {
    name: 'helm-values-object',
    source: {
      path: 'charts/web',
      helm: {
        valuesObject: { message: 'from valuesObject', list: [1, 2] },
        values: 'message: ignored\n',
        skipCrds: true,
        skipTests: true,
        namespace: 'other',
        kubeVersion: 'v1.29.3+k3s1',
      },
    },
  },
  { name: 'helm-hooks', source: { path: 'charts/hooks' } },
  {
    name: 'helm-multi-source',
    source: {
      path: 'charts/web',
      helm: { valueFiles: ['$vals/charts/web/values-prod.yaml'], kubeVersion: '1.34.4' },
    },
    ref: 'vals',
  },
  {
    name: 'helm-local-dep',
    source: { path: 'charts/local-dep', helm: { kubeVersion: '1.34.4' } },
  },
  { name: 'kust-plain', source: { path: 'kustomize/overlay' } },
  {
    name: 'kust-options',
    source: {
      path: 'kustomize/overlay',
      kustomize: {
        namePrefix: 'pre-',
        nameSuffix: '-suf',
        images: ['nginx=registry.example.com/nginx:1.28'],
        replicas: [{ name: 'web', count: 3 }],
        commonLabels: { team: 'blue' },
        commonAnnotations: { owner: 'team-blue' },
        namespace: 'kust-ns',
        components: ['../component'],
        patches: [
          {
            target: { kind: 'Service', name: 'web' },
            patch: '- op: replace\n  path: /spec/ports/0/port\n  value: 8081\n',
          },
        ],
      },
    },
  },
  {
    name: 'kust-labels-without-selector',
    source: {
      path: 'kustomize/overlay',
      kustomize: { commonLabels: { tier: 'web' }, labelWithoutSelector: true, forceCommonLabels: true },
    },
  },
];

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

function application(c: (typeof CASES)[number]): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: `${prefix}${c.name}`, namespace: rig.argocdNamespace },
    spec: {
      project: 'default',
      ...(c.ref
        ? {
            sources: [
              { repoURL, targetRevision: 'main', ...c.source },
              { repoURL, targetRevision: 'main', ref: c.ref },
            ],
          }
        : { source: { repoURL, targetRevision: 'main', ...c.source } }),
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
async function ourTargets(appFile: string): Promise<Obj[]> {
  let out: string;
  try {
    out = sh(
      process.execPath,
      [
        '--import',
        'tsx',
        join(project, 'bin/dev.js'),
        'diff',
        '-f',
        appFile,
        '--kubeconfig',
        rig.kubeconfig,
        '-o',
        'json',
        '--quiet',
      ],
      {},
      project,
    );
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
  const repo = join(work, 'repo');
  cpSync(join(project, 'test/fixtures/helm/charts'), join(repo, 'charts'), { recursive: true });
  cpSync(join(project, 'test/fixtures/kustomize'), join(repo, 'kustomize'), { recursive: true });
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
  const apps = CASES.map(application);
  const appsFile = join(work, 'apps.yaml');
  writeFileSync(appsFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: apps }));
  let differ = 0;
  let expected = 0;
  let objects = 0;
  let identical = 0;
  try {
    kubectl('apply', '-f', appsFile);
    for (const c of CASES) {
      const name = `${prefix}${c.name}`;
      let theirs: Obj[] | undefined;
      let failure = '';
      // The CLI reads the app's managed resources first: the controller must have refreshed it once.
      for (let attempt = 0; attempt < 30 && !theirs; attempt++) {
        try {
          theirs = docs(
            sh(rig.argocd, [
              '--server',
              rig.argocdServer,
              '--plaintext',
              'app',
              'manifests',
              name,
              '--source',
              'git',
              '--revision',
              'main',
            ]),
          );
        } catch (err) {
          failure =
            String((err as { stderr?: string }).stderr ?? err)
              .trim()
              .split('\n')
              .pop() ?? '';
          if (!failure.includes('key is missing')) break;
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
      if (!theirs) {
        console.log(`${c.name}: Argo CD failed: ${failure}`);
        differ++;
        continue;
      }
      const appFile = join(work, `${c.name}.yaml`);
      writeFileSync(appFile, JSON.stringify(application(c)));
      let ours: Obj[];
      try {
        if (c.cluster) {
          ours = await ourTargets(appFile);
          // `diff` reports the app's resources, as Argo CD's managed resources: hooks are not among them.
          theirs = theirs.filter((o) => !isHook(o));
        } else
          ours = docs(
            sh(
              process.execPath,
              ['--import', 'tsx', join(project, 'bin/dev.js'), 'render', '-f', appFile, '--quiet'],
              {},
              project,
            ),
          );
      } catch (err) {
        console.log(
          `${c.name}: render failed: ${String((err as { stderr?: string }).stderr ?? err)
            .trim()
            .split('\n')
            .pop()}`,
        );
        differ++;
        continue;
      }
      const a = keyed(ours, name);
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
      try {
        kubectl('delete', '-f', appsFile, '--wait=false');
      } catch {
        // already gone
      }
      rmSync(bare, { recursive: true, force: true });
    }
    rmSync(work, { recursive: true, force: true });
  }
  const after = renderSettings();
  if (before || after)
    console.log(
      `\nargocd-cm holds render settings (before: ${before || 'none'}; after: ${after || 'none'}): the comparison assumes Argo CD's defaults`,
    );
  console.log(
    `\n${CASES.length} cases: ${CASES.length - differ - expected} identical, ${expected} different as expected, ${differ} different; ${objects} objects, ${identical} identical`,
  );
  process.exitCode = differ ? 1 : 0;
}

await main();
