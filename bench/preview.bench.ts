/**
 * `diff --base` benchmarks: one repository, two commits, the apps' manifests changed by the second in a few
 * apps only. Cold = empty cache (mirror fetched, base rendered, head reusing the base's render of every app
 * the change does not touch); warm = the same run again (manifests from the cache). Measured in process (add
 * the CLI's start-up, see the startup bench). Each row's note also gives the CPU time the run took in this
 * process and in the processes it waited for (git, helm, kustomize), and the load average: on a busy shared
 * machine the wall time says more about the neighbours than about the code, the CPU time does not.
 * - `fleet`: 1,000 plain-directory Applications x 10 ConfigMaps, 10 apps touched (issue 30's targets:
 *   cold < 3 s, warm < 1 s);
 * - `mixed`: 300 Applications x 10 resources (150 plain directories, 150 Kustomize rendered by the real
 *   kustomize 5.8.1), 30 touched (targets: cold < 10 s, warm < 3 s);
 * - `helm`: 200 Helm Applications sharing one chart in the repository, each with its own value file, 10 value
 *   files touched; once plain and once annotated `argocd.argoproj.io/manifest-generate-paths`. No target: the
 *   figure says what a Helm fleet costs. Cold, every app is rendered once at the base (one `helm template`
 *   process each, about 40-80 ms of CPU on 2 cores: the cost of a Helm fleet is its helm processes); at the
 *   head only the 10 touched apps render again: the others' renders are keyed by the chart's Git tree and
 *   their value file's blob (src/source/tree-key.ts), which the change left alone (or, annotated, by the
 *   declared paths). Warm: no helm process at all.
 * `npm run bench -- preview`; `npm run bench -- preview --fleet` runs the 1,000-app rows only.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterSource, runBasePreview, type PreviewReport } from '../src/preview/index.js';
import { ToolPaths } from '../src/source/index.js';
import { forgetParsedFiles, setParseCacheDir } from '../src/util/yaml-docs.js';
import type { BenchRow } from './run.js';
import { timeMs } from './util.js';

const REPO_URL = 'https://git.example.com/bench/deploy.git';

function configMap(app: number, i: number, value: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-${app}-${i}\ndata:\n  index: "${i}"\n  value: "${value}"\n`;
}

function deployment(app: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: app-${app}}
spec:
  replicas: 2
  selector: {matchLabels: {app: app-${app}}}
  template:
    metadata: {labels: {app: app-${app}}}
    spec: {containers: [{name: main, image: nginx, ports: [{containerPort: 80}]}]}
`;
}

type Kind = 'directory' | 'mixed' | 'helm' | 'helm-annotated';

function writeApp(dir: string, kind: Kind, a: number, version: string): void {
  if (kind === 'helm' || kind === 'helm-annotated') {
    writeFileSync(join(dir, `values/app-${a}.yaml`), `version: "${version}"\nname: app-${a}\n`);
    return;
  }
  const path = join(dir, `apps/app-${a}`);
  mkdirSync(path, { recursive: true });
  if (kind === 'directory' || a % 2 === 0) {
    const docs = Array.from({ length: 10 }, (_, i) => configMap(a, i, i === 0 ? version : 'same'));
    writeFileSync(join(path, 'resources.yaml'), docs.join('---\n'));
  } else {
    const docs = Array.from({ length: 9 }, (_, i) => configMap(a, i, 'same'));
    writeFileSync(join(path, 'config.yaml'), docs.join('---\n'));
    writeFileSync(join(path, 'deployment.yaml'), deployment(a));
    writeFileSync(
      join(path, 'kustomization.yaml'),
      `resources: [config.yaml, deployment.yaml]\nimages: [{name: nginx, newTag: "${version}"}]\n`,
    );
  }
}

const CHART = {
  'charts/shared/Chart.yaml': 'apiVersion: v2\nname: shared\nversion: 1.0.0\n',
  'charts/shared/values.yaml': 'version: "0"\nname: x\n',
  'charts/shared/templates/cms.yaml':
    '{{- range $i := until 9 }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ $.Values.name }}-{{ $i }}"}\ndata: {index: "{{ $i }}", value: same}\n{{- end }}\n',
  'charts/shared/templates/deploy.yaml':
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: "{{ .Values.name }}"}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: "{{ .Values.name }}"}}\n  template:\n    metadata: {labels: {app: "{{ .Values.name }}"}}\n    spec: {containers: [{name: main, image: "nginx:{{ .Values.version }}"}]}\n',
};

function buildRepo(dir: string, kind: Kind, apps: number, touched: number): void {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  mkdirSync(join(dir, 'argocd'), { recursive: true });
  git('init', '-q', '-b', 'main');
  git('remote', 'add', 'origin', REPO_URL);
  const helm = kind === 'helm' || kind === 'helm-annotated';
  if (helm) {
    mkdirSync(join(dir, 'values'));
    for (const [path, text] of Object.entries(CHART)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  }
  const source = (a: number) =>
    helm
      ? `{repoURL: ${REPO_URL}, path: charts/shared, targetRevision: main, helm: {valueFiles: [../../values/app-${a}.yaml]}}`
      : `{repoURL: ${REPO_URL}, path: apps/app-${a}, targetRevision: main}`;
  const annotation = (a: number) =>
    kind === 'helm-annotated'
      ? `\n  annotations: {argocd.argoproj.io/manifest-generate-paths: ".;/values/app-${a}.yaml"}`
      : '';
  const docs = Array.from(
    { length: apps },
    (_, a) => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: app-${a}${annotation(a)}
spec:
  source: ${source(a)}
  destination: {server: https://kubernetes.default.svc, namespace: ns-${a}}
`,
  );
  writeFileSync(join(dir, 'argocd/apps.yaml'), docs.join('---\n'));
  for (let a = 0; a < apps; a++) writeApp(dir, kind, a, '1.25');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  for (let a = 0; a < touched; a++) writeApp(dir, kind, a * Math.floor(apps / touched), '1.26');
  git('add', '-A');
  git('commit', '-q', '-m', 'change');
}

async function preview(dir: string, cacheRoot: string): Promise<PreviewReport> {
  // As the CLI: parsed app files are kept under the cache too (src/commands useParseCache).
  // Each run starts as a new process would: nothing parsed in memory.
  setParseCacheDir(join(cacheRoot, 'parsed'));
  forgetParsedFiles();
  return runBasePreview({
    files: [join(dir, 'argocd')],
    base: 'HEAD~1',
    cwd: dir,
    argocdNamespace: 'argocd',
    recursive: true,
    maxDepth: 5,
    clusters: clusterSource({ clustersFiles: [] }),
    source: { cacheRoot },
  });
}

/** CPU milliseconds of this process, and of the child processes it has waited for (Linux; 0 elsewhere). */
function cpuMs(): { self: number; children: number } {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // /proc/self/stat fields 16 and 17 (after the command name): cutime, cstime in clock ticks (100 Hz).
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    children = (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    // not Linux
  }
  return { self: (own.user + own.system) / 1000, children };
}

async function measured(
  fn: () => Promise<PreviewReport>,
): Promise<{ ms: number; result: PreviewReport; cpu: string }> {
  const before = cpuMs();
  const load = loadavg()[0]!.toFixed(1);
  const { ms, result } = await timeMs(fn);
  const after = cpuMs();
  const s = (n: number) => `${(n / 1000).toFixed(2)} s`;
  return {
    ms,
    result,
    cpu: `CPU ${s(after.self - before.self)} + ${s(after.children - before.children)} in git/helm/kustomize, load ${load}`,
  };
}

interface Scenario {
  kind: Kind;
  apps: number;
  touched: number;
  label: string;
  targets?: { cold: number; warm: number };
}

async function run(s: Scenario): Promise<BenchRow[]> {
  const base = mkdtempSync(join(tmpdir(), 'kg-bench-preview-'));
  try {
    const dir = join(base, 'repo');
    mkdirSync(dir);
    buildRepo(dir, s.kind, s.apps, s.touched);
    const cache = join(base, 'cache');
    const cold = await measured(() => preview(dir, cache));
    const warm = await measured(() => preview(dir, cache));
    const changed = (r: PreviewReport) => r.apps.filter((a) => a.change !== 'unchanged').length;
    const errors = cold.result.apps.filter((a) => a.error);
    const note = `${changed(cold.result)} of ${cold.result.apps.length} apps changed, ${errors.length} errors${errors[0] ? ` (${errors[0].error!.message})` : ''}; ${cold.cpu}`;
    return [
      {
        name: `diff --base cold: ${s.label}`,
        value: cold.ms,
        unit: 'ms',
        ...(s.targets ? { target: { value: s.targets.cold, better: 'lower' as const } } : {}),
        note,
      },
      {
        name: `diff --base warm: ${s.label}`,
        value: warm.ms,
        unit: 'ms',
        ...(s.targets ? { target: { value: s.targets.warm, better: 'lower' as const } } : {}),
        note: `${changed(warm.result)} apps changed; ${warm.cpu}`,
      },
    ];
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

export default async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  rows.push(
    ...(await run({
      kind: 'directory',
      apps: 1000,
      touched: 10,
      label: '1,000 directory apps x 10 resources, 10 touched',
      targets: { cold: 3_000, warm: 1_000 },
    })),
  );
  if (process.argv.includes('--fleet')) return rows;
  const tools = new ToolPaths();
  const kustomize = await tools.kustomize().catch(() => undefined);
  const helm = await tools.helm().catch(() => undefined);
  if (kustomize)
    rows.push(
      ...(await run({
        kind: 'mixed',
        apps: 300,
        touched: 30,
        label: '300 apps (150 kustomize) x 10 resources, 30 touched',
        targets: { cold: 10_000, warm: 3_000 },
      })),
    );
  else rows.push({ name: 'mixed: skipped, kustomize not installed (npm run tools)', value: 0, unit: '' });
  if (helm) {
    rows.push(
      ...(await run({
        kind: 'helm',
        apps: 200,
        touched: 10,
        label: '200 Helm apps, one chart, 10 value files touched',
      })),
    );
    rows.push(
      ...(await run({
        kind: 'helm-annotated',
        apps: 200,
        touched: 10,
        label: '200 Helm apps, manifest-generate-paths',
      })),
    );
  } else rows.push({ name: 'helm: skipped, helm not installed (npm run tools)', value: 0, unit: '' });
  return rows;
}
