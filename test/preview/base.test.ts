import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clusterSource, runBasePreview, type PreviewReport } from '../../src/preview/index.js';
import { previewDocument, renderPreviewMarkdown, renderPreviewText } from '../../src/output/preview.js';
import { runCli } from '../support/cli.js';
import { TestRepo, tempDir } from '../support/git.js';
import { realTool } from '../support/tools.js';

// The Applications name the repository as https://git.example.com/org/deploy.git; the working copy's origin
// is written another way Argo CD normalises to the same repository, and is never contacted.
const REPO = 'https://git.example.com/org/deploy.git';
const ORIGIN = 'https://git.example.com/Org/Deploy';

const app = (name: string, path: string, extra = '') => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ${name}}
spec:
  source: {repoURL: ${REPO}, path: ${path}, targetRevision: main${extra}}
  destination: {server: https://kubernetes.default.svc, namespace: ${name}}
`;
const cm = (name: string, data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: ${JSON.stringify(data)}\n`;
const secret = (pw: string) =>
  `apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {password: ${pw}}\n`;
const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`;
const kustomization = (tag: string) =>
  `resources: [deployment.yaml]\nimages: [{name: nginx, newTag: "${tag}"}]\n`;
const appset = (envs: string[]) => `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: envs, namespace: argocd}
spec:
  generators:
  - list:
      elements: [${envs.map((e) => `{env: ${e}}`).join(', ')}]
  template:
    metadata: {name: 'env-{{env}}'}
    spec:
      source: {repoURL: ${REPO}, path: 'envs/{{env}}'}
      destination: {server: https://kubernetes.default.svc, namespace: '{{env}}'}
`;

let repo: TestRepo;
let baseSha: string;
let cache: string;
// The kustomize apps render with the real kustomize 5.8.1 (`npm run tools`); under CI=true a missing one fails.
const kustomize = realTool('kustomize');

before(async () => {
  cache = tempDir('kg-cache-');
  repo = new TestRepo();
  repo.git('remote', 'add', 'origin', ORIGIN);
  baseSha = repo.commit({
    'apps/web.yaml': app('web', 'web'),
    'apps/old.yaml': app('old', 'old'),
    'apps/kust.yaml': app('kust', 'kust'),
    'apps/root.yaml': app('root', 'children'),
    'apps/envs.yaml': appset(['a']),
    'web/cm.yaml': cm('web', { color: 'blue', size: 'm' }),
    'web/secret.yaml': secret('hunter2'),
    'old/cm.yaml': cm('old', { x: '1' }),
    'kust/deployment.yaml': deployment,
    'kust/kustomization.yaml': kustomization('1.25'),
    'children/child.yaml': app('child', 'child'),
    'child/cm.yaml': cm('child', { v: '1' }),
    'envs/a/cm.yaml': cm('a', { env: 'a' }),
    'envs/b/cm.yaml': cm('b', { env: 'b' }),
    // A kustomization reading outside its path: a change there must not be hidden by reusing the base render.
    'apps/overlay.yaml': app('overlay', 'overlay'),
    'overlay/kustomization.yaml': 'resources: [../base-layer]\nnamePrefix: o-\n',
    'base-layer/kustomization.yaml': 'resources: [cm.yaml]\n',
    'base-layer/cm.yaml': cm('shared', { v: '1' }),
    // A git directories generator on this repository: read at each side's revision.
    'apps/svcs.yaml': `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: svcs}
spec:
  goTemplate: true
  generators: [{git: {repoURL: '${ORIGIN}.git', revision: main, directories: [{path: 'svcs/*'}]}}]
  template:
    metadata: {name: 'svc-{{ .path.basename }}'}
    spec:
      source: {repoURL: ${REPO}, path: '{{ .path.path }}'}
      destination: {server: https://kubernetes.default.svc, namespace: svcs}
`,
    'svcs/x/cm.yaml': cm('x', { v: '1' }),
  });
  repo.commit({
    'apps/old.yaml': null,
    'apps/new.yaml': app('new', 'new'),
    'new/cm.yaml': cm('new', { fresh: 'yes' }),
    'apps/envs.yaml': appset(['a', 'b']),
    'web/cm.yaml': cm('web', { color: 'green' }),
    'web/secret.yaml': secret('hunter3'),
    'kust/kustomization.yaml': kustomization('1.26'),
    'child/cm.yaml': cm('child', { v: '2' }),
    'base-layer/cm.yaml': cm('shared', { v: '2' }),
    'svcs/y/cm.yaml': cm('y', { v: '1' }),
  });
});

after(() => undefined);

async function preview(extra: Partial<Parameters<typeof runBasePreview>[0]> = {}): Promise<PreviewReport> {
  return runBasePreview({
    files: ['apps'],
    base: 'HEAD~1',
    cwd: repo.dir,
    argocdNamespace: 'argocd',
    recursive: true,
    maxDepth: 5,
    clusters: clusterSource({ clustersFiles: [] }),
    source: { cacheRoot: cache },
    ...extra,
  });
}

const changeOf = (r: PreviewReport) => Object.fromEntries(r.apps.map((a) => [a.app.name, a.change]));
const diffsOf = (r: PreviewReport, name: string) =>
  r.apps.find((a) => a.app.name === name)!.resources.filter((x) => x.status !== 'Synced');

describe('diff --base: two revisions of one repository, no cluster', () => {
  it('classifies apps: changed values, added/removed apps, ApplicationSet generator, app-of-apps child', async (t) => {
    if (kustomize.skip) return t.skip(kustomize.skip);
    const r = await preview();
    assert.equal(r.base, baseSha);
    assert.equal(r.head, repo.head());
    assert.deepEqual(changeOf(r), {
      web: 'modified',
      kust: 'modified',
      new: 'added',
      root: 'unchanged',
      'env-a': 'unchanged',
      'env-b': 'added',
      old: 'removed',
      child: 'modified',
      overlay: 'modified',
      'svc-x': 'unchanged',
      'svc-y': 'added',
    });
    const web = diffsOf(r, 'web');
    assert.deepEqual(
      web.map((x) => [x.kind, x.difference]),
      [
        ['ConfigMap', 'modified'],
        ['Secret', 'modified'],
      ],
    );
    const cmDiff = web[0]!.diffText!;
    assert.match(cmDiff, /^--- base \/ConfigMap web\n\+\+\+ head \/ConfigMap web\n/);
    assert.match(cmDiff, /^- {2}color: blue$/m);
    assert.match(cmDiff, /^\+ {2}color: green$/m);
    // A value the change removes is a difference too.
    assert.match(cmDiff, /^- {2}size: m$/m);
    assert.deepEqual(
      diffsOf(r, 'old').map((x) => [x.name, x.difference]),
      [['old', 'extra']],
    );
    assert.deepEqual(
      diffsOf(r, 'new').map((x) => [x.name, x.difference]),
      [['new', 'missing']],
    );
    assert.deepEqual(
      diffsOf(r, 'child').map((x) => x.name),
      ['child'],
    );
    assert.deepEqual(
      diffsOf(r, 'env-b').map((x) => [x.namespace, x.name]),
      [['b', 'b']],
    );
  });

  it('a kustomize image bump shows in the Deployment (real kustomize)', async (t) => {
    if (kustomize.skip) return t.skip(kustomize.skip);
    const r = await preview();
    const kust = diffsOf(r, 'kust');
    assert.deepEqual(
      kust.map((x) => [x.kind, x.name]),
      [['Deployment', 'web']],
    );
    assert.match(kust[0]!.diffText!, /^-\s+- image: nginx:1\.25$/m);
    assert.match(kust[0]!.diffText!, /^\+\s+- image: nginx:1\.26$/m);
  });

  it('Secret values are masked in every printer', async (t) => {
    if (kustomize.skip) return t.skip(kustomize.skip);
    const r = await preview();
    const s = diffsOf(r, 'web').find((x) => x.kind === 'Secret')!;
    assert.match(s.diffText!, /password: \+{8,}/);
    const printed = [renderPreviewText(r), renderPreviewMarkdown(r), JSON.stringify(previewDocument(r))].join(
      '\n',
    );
    for (const secretText of ['hunter2', 'hunter3', 'aHVudGVy'])
      assert.ok(!printed.includes(secretText), secretText);
  });

  it('--local compares the working tree; a name selects among generated and child apps', async (t) => {
    if (kustomize.skip) return t.skip(kustomize.skip);
    mkdirSync(join(repo.dir, 'child'), { recursive: true });
    writeFileSync(join(repo.dir, 'child', 'cm.yaml'), cm('child', { v: '3' }));
    try {
      const r = await preview({ local: repo.dir, names: ['child', 'env-b'] });
      assert.equal(r.head, 'local');
      assert.deepEqual(changeOf(r), { child: 'modified', 'env-b': 'added' });
      assert.match(diffsOf(r, 'child')[0]!.diffText!, /^\+ {2}v: "3"$/m);
    } finally {
      repo.git('checkout', '--', 'child/cm.yaml');
    }
  });

  it('markdown: summary table first, one collapsible section per changed app, cut keeps the summary', async (t) => {
    if (kustomize.skip) return t.skip(kustomize.skip);
    const r = await preview();
    const md = renderPreviewMarkdown(r);
    assert.match(md, /11 app\(s\): 3 added, 1 removed, 4 modified, 3 unchanged; \d+ resource\(s\) changed\./);
    assert.match(md, /\| new \| :new: added \| 1 \(\+1 ~0 -0\) \|/);
    assert.equal(md.match(/<details>/g)?.length, 8);
    const small = renderPreviewMarkdown(r, 1500);
    assert.ok(Buffer.byteLength(small) <= 1500, String(Buffer.byteLength(small)));
    assert.match(small, /\| old \| :wastebasket: removed/);
    assert.match(small, /Output truncated/);
  });

  it('the CLI: exit 1 with differences, JSON with base/head/change, clear errors', async (t) => {
    if (kustomize.skip) return t.skip(kustomize.skip);
    const env = { XDG_CACHE_HOME: cache };
    const r = await runCli(['diff', '-f', 'apps', '--base', 'HEAD~1', '-o', 'json'], { cwd: repo.dir, env });
    assert.equal(r.code, 1, r.stderr);
    const doc = JSON.parse(r.stdout) as {
      base: string;
      head: string;
      apps: { name: string; change: string }[];
    };
    assert.equal(doc.base, baseSha);
    assert.equal(doc.apps.find((a) => a.name === 'new')?.change, 'added');
    const same = await runCli(['diff', '-f', 'apps', '--base', 'HEAD', 'web'], { cwd: repo.dir, env });
    assert.equal(same.code, 0, same.stderr);
    const bad = await runCli(['diff', '-f', 'apps', '--base', 'no-such-ref'], { cwd: repo.dir, env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--base: failed to resolve "no-such-ref"/);
    const noGit = await runCli(['diff', '-f', join(repo.dir, 'apps'), '--base', 'HEAD'], {
      cwd: tempDir(),
      env,
    });
    assert.equal(noGit.code, 2);
    assert.match(noGit.stderr, /failed to find the working copy: not a Git repository/);
  });
});
