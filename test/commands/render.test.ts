import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../support/cli.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const cache = tempDir('kg-cache-');

// bin/dev.js currently loads commands from the dist/ bundle (oclif's explicit target), not from src/; so the
// CLI is driven here the way src/cli/run.ts drives it, on the TypeScript sources. A module hook records
// whether @kubernetes/client-node was ever loaded (into the file named by KG_PROBE).
const runner = join(tempDir('kg-runner-'), 'run.mjs');
writeFileSync(
  join(runner, '..', 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.KG_PROBE && url.includes('@kubernetes/client-node')) appendFileSync(process.env.KG_PROBE, url + '\\n');
  return next(url, context);
}
`,
);
writeFileSync(
  runner,
  `import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(pathToFileURL(${JSON.stringify(join(runner, '..', 'hooks.mjs'))}).href);
const root = ${JSON.stringify(root)};
const { default: Render } = await import(pathToFileURL(root + '/src/commands/render.ts').href);
const { exitCodeOf, formatError } = await import(pathToFileURL(root + '/src/cli/handle-error.ts').href);
const argv = process.argv.slice(2);
try {
  await Render.run(argv, root);
} catch (err) {
  if (err?.code !== 'EEXIT') for (const line of formatError(err, argv, 'render')) process.stderr.write(line + '\\n');
  process.exitCode = exitCodeOf(err);
}
`,
);

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  return run(args, {});
}

function run(
  args: string[],
  env: Record<string, string>,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', runner, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: cache, NO_COLOR: '1', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('kubectl gitops render', () => {
  const repo = new TestRepo();
  const sha = repo.commit({
    'web/cm.yaml': cm('web-settings'),
    'web/dup.yaml': `${cm('dup')}---\n${cm('dup')}`,
    'db/cm.yaml': cm('db-settings'),
    'broken/x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [\n',
  });
  const apps = tempDir();
  writeFileSync(
    join(apps, 'apps.yaml'),
    [
      appYaml('web', repo.url, 'web', { namespace: 'web-ns' }).replace(
        '  name: web\n',
        '  name: web\n  labels: {team: web}\n',
      ),
      appYaml('db', repo.url, 'db', { revision: 'main', namespace: 'db-ns' }),
    ].join('---\n'),
  );
  writeFileSync(join(apps, 'broken.yaml.off'), appYaml('broken', repo.url, 'broken'));
  after(() => repo.remove());

  it('prints multi-doc YAML with tracking ids, warns about duplicates on stderr', () => {
    const r = cli('-f', apps);
    assert.equal(r.code, 0, r.stderr);
    const docs = parseAllDocuments(r.stdout).map(
      (d) => d.toJS() as { metadata: { name: string; annotations: Record<string, string> } },
    );
    assert.deepEqual(
      docs.map((d) => d.metadata.annotations['argocd.argoproj.io/tracking-id']),
      ['web:/ConfigMap:web-ns/web-settings', 'web:/ConfigMap:web-ns/dup', 'db:/ConfigMap:db-ns/db-settings'],
    );
    assert.match(r.stdout, new RegExp(`^# app: web  revision: ${sha}$`, 'm'));
    assert.match(
      r.stderr,
      /warning: app "web": Resource \/ConfigMap\/web-ns\/dup appeared 2 times among application resources\./,
    );
  });

  it('-o json with name selection and -l selector', () => {
    const r = cli('-f', apps, '-o', 'json', 'db');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      apps: { name: string; revision: string; source: Record<string, string>; objects: unknown[] }[];
    };
    assert.deepEqual(
      out.apps.map((a) => [
        a.name,
        a.revision,
        a.source['path'],
        a.source['targetRevision'],
        a.objects.length,
      ]),
      [['db', sha, 'db', 'main', 1]],
    );
    const bySelector = JSON.parse(cli('-f', apps, '-o', 'json', '-l', 'team=web').stdout) as {
      apps: { name: string }[];
    };
    assert.deepEqual(
      bySelector.apps.map((a) => a.name),
      ['web'],
    );
  });

  it('--output-dir writes one file per app', () => {
    const out = join(tempDir(), 'out');
    const r = cli('-f', apps, '--output-dir', out);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(readFileSync(join(out, 'web.yaml'), 'utf8'), /name: web-settings/);
    assert.match(readFileSync(join(out, 'db.yaml'), 'utf8'), /name: db-settings/);
  });

  it('--output-dir refuses an Application name that would leave the folder (exit 2, nothing written)', () => {
    const base = tempDir();
    const out = join(base, 'out');
    const bad = join(base, 'bad.yaml');
    writeFileSync(bad, appYaml('../escaped', repo.url, 'web', { revision: sha }));
    const r = cli('-f', bad, '--output-dir', out);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      r.stderr.split('\n')[0],
      `error: ${bad} (document 1): failed to load Application "../escaped": metadata.name "../escaped" is not a valid name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    );
    assert.equal(existsSync(join(base, 'escaped.yaml')), false);
    assert.equal(existsSync(out), false);
  });

  it('--output-dir that cannot be created is an error naming the folder (exit 2)', () => {
    const base = tempDir();
    const blocker = join(base, 'file');
    writeFileSync(blocker, '');
    const r = cli('-f', apps, '--output-dir', join(blocker, 'out'));
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr.split('\n').find((l) => l.startsWith('error: '))!,
      new RegExp(`^error: ${join(blocker, 'out')}: failed to create the output folder: `),
    );
  });

  it('ad-hoc app from flags', () => {
    const r = cli(
      '--repo',
      repo.url,
      '--path',
      'db',
      '--revision',
      sha,
      '--dest-namespace',
      'x',
      '-o',
      'json',
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      apps: { name: string; objects: { metadata: { annotations: Record<string, string> } }[] }[];
    };
    assert.equal(out.apps[0]!.name, 'db');
    assert.equal(
      out.apps[0]!.objects[0]!.metadata.annotations['argocd.argoproj.io/tracking-id'],
      'db:/ConfigMap:x/db-settings',
    );
  });

  it('--local renders uncommitted changes', () => {
    const work = tempDir();
    writeFileSync(join(work, 'x.yaml'), cm('local-only'));
    const r = cli(
      '--repo',
      'https://example.invalid/none.git',
      '--path',
      '.',
      '--name',
      'loc',
      '--local',
      work,
      '-o',
      'json',
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      apps: { revision: string; objects: { metadata: { name: string } }[] }[];
    };
    assert.equal(out.apps[0]!.revision, 'local');
    assert.equal(out.apps[0]!.objects[0]!.metadata.name, 'local-only');
  });

  it('exit 2 naming the failing app, file and reason; the other apps still print', () => {
    const file = join(apps, 'broken.yaml');
    writeFileSync(file, readFileSync(join(apps, 'broken.yaml.off')));
    try {
      const r = cli('-f', apps);
      assert.equal(r.code, 2);
      assert.match(
        r.stderr,
        new RegExp(
          `^error: app "broken": failed to render broken/x\\.yaml from ${repo.url}: invalid YAML at line \\d+`,
          'm',
        ),
      );
      assert.match(r.stdout, /name: db-settings/);
    } finally {
      writeFileSync(file, '');
    }
  });

  it('exit 2 for bad input: unknown app, invalid Application, no source of apps', () => {
    let r = cli('-f', apps, 'nope');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: app "nope": failed to select: no such Application \(known: web, db\)/);
    const bad = join(tempDir(), 'bad.yaml');
    writeFileSync(
      bad,
      appYaml('x', repo.url, 'web', { spec: '  syncPolicy:\n    syncOptions: [Bogus=true]\n' }),
    );
    r = cli('-f', bad);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /bad\.yaml \(document 1\): failed to load Application "x": spec\.syncPolicy\.syncOptions: unknown sync option "Bogus=true"/,
    );
    r = cli();
    assert.equal(r.code, 2);
    assert.match(r.stderr, /give -f\/--app-file, --from-cluster or --repo\/--path/);
    r = cli('--path', 'x');
    assert.equal(r.code, 2);
  });

  it('the built CLI (bin/kubectl-gitops) renders the same', async () => {
    const r = await runCli(['render', '-f', apps, '-o', 'json', 'web'], { env: { XDG_CACHE_HOME: cache } });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { apps: { name: string; revision: string; objects: unknown[] }[] };
    assert.deepEqual(
      out.apps.map((a) => [a.name, a.revision, a.objects.length]),
      [['web', sha, 2]],
    );
  });

  it('loads @kubernetes/client-node only with --from-cluster', () => {
    const probe = join(tempDir(), 'probe.txt');
    writeFileSync(probe, '');
    const r = run(['-f', apps, '-o', 'json'], { KG_PROBE: probe });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(probe, 'utf8'), '');
    const kubeconfig = join(tempDir(), 'kubeconfig');
    writeFileSync(
      kubeconfig,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:9"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    const live = run(['--from-cluster'], { KG_PROBE: probe, KUBECONFIG: kubeconfig });
    // An unreachable API server is an error, never "differences found" (issue 14): exit 2.
    assert.equal(live.code, 2, live.stderr);
    assert.match(live.stderr, /^error: namespace argocd: failed to list Applications: /m);
    assert.match(readFileSync(probe, 'utf8'), /@kubernetes\/client-node/);
  });
});
