/**
 * The example apps (test/fixtures/example-apps: argoproj/argocd-example-apps' layout and shapes, written
 * for these tests) in a real Git repository, with the Application files a user would give:
 * - `exampleRepo()`: the fixture committed to a TestRepo, every child's repoURL pointing at it.
 * - `rootFile(dir, repo)`: the app-of-apps root: the Helm chart `apps/` when helm is installed, else
 *   `apps-rendered/` (what helm renders from it, a plain directory), so the tree tests run everywhere.
 * - `childrenFile(dir, repo, names)`: children as `render -f root.yaml --no-recursive -o yaml` gives them
 *   (the issue's `children.yaml`), read from `apps-rendered/`.
 * - `SYNCABLE`: the children that need no plugin and no network (the issue's ten; the two Helm charts only
 *   when helm is installed), `PLUGIN_CHILDREN`: the three config management plugin children.
 */
import { cpSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { which } from '../../src/source/exec.js';
import { realTool } from './tools.js';
import { fixturesDir } from './paths.js';
import { TestRepo, tempDir } from './git.js';

export const EXAMPLE_APPS = join(fixturesDir, 'example-apps');
/** The repository URL the fixture names; replaced by the test repository's. */
const PLACEHOLDERS = ['REPO_URL', 'https://example.invalid/example-apps.git'];

/**
 * The helm the renders use (src/source tool-paths: `helm` on PATH, else the one `npm run tools` installs).
 * Under CI=true it is never "not installed": a missing binary fails the Helm tests (test/support/tools.ts).
 */
const bundledHelm = realTool('helm');
export const helmBinary: string | undefined =
  (await which('helm')) ?? (bundledHelm.skip === false ? bundledHelm.path : undefined);
export const helmInstalled = Boolean(helmBinary);
export const jsonnetInstalled = Boolean(await which('jsonnet'));

export const PLUGIN_CHILDREN = ['plugin-kasane', 'plugin-kustomized-helm', 'plugin-nix'];
const HELM_CHILDREN = ['blue-green', 'helm-guestbook'];
/** The children that need no plugin and no network, as the ten. */
export const SYNCABLE = [
  ...(helmInstalled ? HELM_CHILDREN : []),
  'guestbook',
  'helm-hooks',
  ...(jsonnetInstalled ? ['jsonnet-guestbook', 'jsonnet-guestbook-tla'] : []),
  'kustomize-guestbook',
  'pre-post-sync',
  'sock-shop',
  'sync-waves',
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** The fixture in a Git repository of its own, its URLs pointing at it. */
export function exampleRepo(): TestRepo {
  const repo = new TestRepo();
  cpSync(EXAMPLE_APPS, repo.dir, { recursive: true });
  for (const f of files(repo.dir)) {
    if (relative(repo.dir, f).startsWith('.git')) continue;
    const text = readFileSync(f, 'utf8');
    const replaced = PLACEHOLDERS.reduce((t, p) => t.split(p).join(repo.url), text);
    if (replaced !== text) writeFileSync(f, replaced);
  }
  repo.commit({}, 'the example apps');
  return repo;
}

/** The root Application (app of apps) in `dir`; returns its path. */
export function rootFile(dir: string, repo: TestRepo, name = 'example-root'): string {
  const path = join(dir, 'root.yaml');
  writeFileSync(
    path,
    stringify({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name, namespace: 'argocd' },
      spec: {
        project: 'default',
        destination: { server: 'https://kubernetes.default.svc', namespace: 'argocd' },
        source: { repoURL: repo.url, targetRevision: 'HEAD', path: helmInstalled ? 'apps' : 'apps-rendered' },
      },
    }),
  );
  return path;
}

/** The child Applications named (without the `example.` prefix), one YAML file; returns its path. */
export function childrenFile(
  repo: TestRepo,
  names: readonly string[],
  dir = tempDir('kg-children-'),
): string {
  const docs = parseAllDocuments(readFileSync(join(repo.dir, 'apps-rendered', 'applications.yaml'), 'utf8'))
    .map((d) => d.toJS() as { metadata: { name: string } })
    .filter((d) => names.includes(d.metadata.name.replace(/^example\./, '')));
  const path = join(dir, 'children.yaml');
  writeFileSync(path, docs.map((d) => `---\n${stringify(d)}`).join(''));
  return path;
}
