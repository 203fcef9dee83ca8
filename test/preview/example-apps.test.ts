/**
 * Issue 34 section 2, on argocd-example-apps' layout (test/fixtures/example-apps): an app-of-apps root
 * whose children include three config management plugin children. `render`, `diff --base` and
 * `diff --recursive` list the root (with its Application resources) and every child, each child that
 * cannot load or render with its own error, in text and in `-o json`, as Argo CD shows each child as its
 * own app with its own ComparisonError.
 * `npm test` builds first; run `npm run build` before running this file alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import {
  EXAMPLE_APPS,
  exampleRepo,
  helmBinary,
  helmInstalled,
  PLUGIN_CHILDREN,
  rootFile,
} from '../support/example-apps.js';
import { tempDir } from '../support/git.js';

const CHILDREN = parseAllDocuments(
  readFileSync(join(EXAMPLE_APPS, 'apps-rendered', 'applications.yaml'), 'utf8'),
)
  .map((d) => d.toJS() as { metadata: { name: string } })
  .map((d) => d.metadata.name);

interface Listed {
  name: string;
  error?: string;
}

/** Every child listed once, the plugin ones each with an error naming it (and no other app). */
function assertEveryChild(apps: Listed[]): void {
  assert.deepEqual(
    apps.map((a) => a.name),
    ['example-root', ...CHILDREN],
  );
  assert.equal(apps[0]!.error, undefined, `the root has no error: ${apps[0]!.error}`);
  for (const child of PLUGIN_CHILDREN) {
    const a = apps.find((x) => x.name === `example.${child}`)!;
    assert.match(a.error ?? '', new RegExp(`^app "example\\.${child}": .*plugin`), child);
  }
}

/** The one-line errors on stderr: one per failed child, each naming its own app. */
function assertErrorLines(stderr: string): void {
  for (const child of PLUGIN_CHILDREN)
    assert.match(stderr, new RegExp(`^error: app "example\\.${child}": .*plugin`, 'm'), stderr);
}

describe('app-of-apps with plugin children (the example apps)', () => {
  const fx = useEmbeddedCluster();
  const repo = exampleRepo();
  const dir = tempDir('kg-example-tree-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const root = rootFile(dir, repo);

  it('render: the root with its 14 Applications and every child, each failed child with its own error', async () => {
    const text = await runCli(['render', '-f', root], { env });
    assert.equal(text.code, 2, text.stderr);
    const headers = text.stdout.split('\n').filter((l) => l.startsWith('# app: '));
    assertEveryChild(
      headers.map((h) => {
        const m = /^# app: (\S+) {2}(?:error: (.*)|revision: .*)$/.exec(h)!;
        return { name: m[1]!, ...(m[2] ? { error: m[2] } : {}) };
      }),
    );
    assertErrorLines(text.stderr);

    const json = await runCli(['render', '-f', root, '-o', 'json'], { env });
    assert.equal(json.code, 2, json.stderr);
    const doc = JSON.parse(json.stdout) as { apps: Array<Listed & { objects?: Array<{ kind: string }> }> };
    assertEveryChild(doc.apps);
    const rootObjects = doc.apps[0]!.objects ?? [];
    assert.equal(rootObjects.filter((o) => o.kind === 'Application').length, CHILDREN.length);
  });

  it('diff --base: the root and every child listed, each failed child with its own error', async () => {
    const r = await runCli(['diff', '-f', root, '--base', 'HEAD', '--repo-url', repo.url, '-o', 'json'], {
      env,
      cwd: repo.dir,
    });
    assert.equal(r.code, 2, r.stderr);
    const doc = JSON.parse(r.stdout) as { apps: Listed[] };
    assertEveryChild(doc.apps);
    assertErrorLines(r.stderr);
  });

  it('diff --recursive: the root with its Application resources and every child, each with its own error', async () => {
    const r = await runCli(['diff', '-f', root, '--recursive', '--kubeconfig', fx.kubeconfig, '-o', 'json'], {
      env,
    });
    assert.equal(r.code, 2, r.stderr);
    const doc = JSON.parse(r.stdout) as {
      apps: Array<Listed & { sync: string; resources: Array<{ kind: string }> }>;
    };
    assertEveryChild(doc.apps);
    assert.equal(doc.apps[0]!.resources.filter((x) => x.kind === 'Application').length, CHILDREN.length);
    for (const child of PLUGIN_CHILDREN) {
      const a = doc.apps.find((x) => x.name === `example.${child}`)!;
      assert.equal(a.sync, 'Unknown');
    }
    assertErrorLines(r.stderr);
  });

  it('apps-rendered/ is what helm renders from the apps/ chart', (t) => {
    if (!helmInstalled) return t.skip('helm not installed');
    const out = execFileSync(
      helmBinary!,
      ['template', join(EXAMPLE_APPS, 'apps'), '--set', 'config.spec.source.repoURL=REPO_URL'],
      { encoding: 'utf8' },
    );
    const docs = (text: string) =>
      parseAllDocuments(text)
        .map((d) => d.toJS() as unknown)
        .filter((d) => d !== null);
    assert.deepEqual(
      docs(out),
      docs(readFileSync(join(EXAMPLE_APPS, 'apps-rendered', 'applications.yaml'), 'utf8')),
    );
  });
});
