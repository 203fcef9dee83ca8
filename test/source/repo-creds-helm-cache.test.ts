/**
 * Helm repositories with repository Secrets (`type: helm`): the credentials reach helm through a private
 * repository config (0600) and never its command line (a stand-in helm records its argv and what it
 * read). And secrets at rest: the manifest cache is 0700/0600, an existing world-readable cache is fixed on
 * first use.
 */
import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { parseApplication } from '../../src/apps/index.js';
import { createSourceService } from '../../src/source/index.js';
import { cm, TestRepo, tempDir } from '../support/git.js';
import { repoSecret } from '../support/repositories.js';

const mode = (path: string) => statSync(path).mode & 0o777;

function chartApp(url: string) {
  return parseApplication(
    parse(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: charted, namespace: argocd}
spec:
  project: default
  source: {repoURL: "${url}", chart: web, targetRevision: 1.2.3}
  destination: {server: https://kubernetes.default.svc, namespace: web}
`) as never,
    'test',
  );
}

describe('Helm repository credentials', () => {
  it('go through a private helm repository config, never argv; helm errors are scrubbed', async () => {
    const bin = tempDir('kg-fake-helm-');
    const log = join(bin, 'log');
    // The stand-in helm: logs argv and the mode and contents of --repository-config; `template` prints a
    // ConfigMap; with FAIL_WITH set it fails echoing the config (as a real tool might echo a URL).
    writeFileSync(
      join(bin, 'helm'),
      `#!/bin/sh
echo "ARGV $*" >> "${log}"
cfg=""; prev=""
for a in "$@"; do [ "$prev" = "--repository-config" ] && cfg="$a"; prev="$a"; done
if [ -n "$cfg" ]; then echo "MODE $(stat -c %a "$cfg")" >> "${log}"; echo "CONFIG $(cat "$cfg")" >> "${log}"; fi
if [ "$1" = "template" ] && grep -q "fail-please" "$cfg" 2>/dev/null; then echo "Error: 401 for $(cat "$cfg")" >&2; exit 1; fi
if [ "$1" = "template" ]; then printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: from-chart\\n'; fi
exit 0
`,
    );
    chmodSync(join(bin, 'helm'), 0o755);
    const url = 'https://charts.example.com/private';
    const render = async (password: string) => {
      const service = createSourceService({
        cacheRoot: tempDir('kg-cache-'),
        path: bin,
        repositories: () =>
          Promise.resolve([
            repoSecret('charts', 'repository', { url, type: 'helm', username: 'robot', password }),
          ]),
      });
      try {
        return await service.renderApp(chartApp(url));
      } finally {
        await service.close();
      }
    };
    const r = await render('helm-Pa55word');
    assert.deepEqual(
      r.objects.map((o) => o.metadata?.name),
      ['from-chart'],
    );
    const text = readFileSync(log, 'utf8');
    const argv = text.split('\n').filter((l) => l.startsWith('ARGV '));
    assert.match(argv[0]!, /^ARGV repo update repo-\d+ --repository-config \S+ --repository-cache \S+$/);
    assert.match(
      argv[1]!,
      /^ARGV template repo-\d+\/web --version 1\.2\.3 --repository-config \S+ --repository-cache \S+ /,
    );
    for (const line of argv) {
      assert.ok(!line.includes('helm-Pa55word') && !line.includes('robot'), line);
      assert.ok(!line.includes('--username') && !line.includes('--password'), line);
    }
    assert.match(text, /^MODE 600$/m);
    const config = JSON.parse(/^CONFIG (.*)$/m.exec(text)![1]!) as {
      repositories: Record<string, unknown>[];
    };
    assert.deepEqual(config.repositories[0], {
      name: /^ARGV repo update (repo-\d+)/.exec(argv[0]!)![1],
      url,
      pass_credentials_all: false,
      username: 'robot',
      password: 'helm-Pa55word',
    });
    await assert.rejects(render('fail-please'), (err: Error) => {
      assert.match(
        err.message,
        /^app "charted": failed to render chart web from https:\/\/charts\.example\.com\/private: helm template failed: Error: 401 for /,
      );
      assert.ok(!err.message.includes('fail-please'), err.message);
      return true;
    });
  });
});

describe('secrets at rest: the manifest cache', () => {
  it('creates directories 0700 and files 0600, and fixes an existing world-readable cache on first use', async () => {
    const repo = new TestRepo();
    repo.commit({ 'app/cm.yaml': cm('settings') });
    const root = join(tempDir('kg-home-'), 'kubectl-gitops');
    // A cache left by an older version: 0755 directories, a 0644 entry.
    const old = join(root, 'manifests', 'ab');
    mkdirSync(old, { recursive: true, mode: 0o755 });
    chmodSync(root, 0o755);
    chmodSync(join(root, 'manifests'), 0o755);
    writeFileSync(join(old, 'ab00.json'), '{}', { mode: 0o644 });
    chmodSync(join(old, 'ab00.json'), 0o644);
    const service = createSourceService({ cacheRoot: root });
    try {
      const app = parseApplication(
        parse(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  source: {repoURL: "${repo.url}", path: app}
  destination: {server: https://kubernetes.default.svc, namespace: web}
`) as never,
        'test',
      );
      await service.renderApp(app);
    } finally {
      await service.close();
      repo.remove();
    }
    assert.equal(mode(root), 0o700);
    assert.equal(mode(join(root, 'manifests')), 0o700);
    assert.equal(mode(old), 0o700);
    assert.equal(mode(join(old, 'ab00.json')), 0o600);
    const entries = readdirSync(join(root, 'manifests'), { recursive: true, encoding: 'utf8' });
    const files = entries.filter((f) => f.endsWith('.json'));
    assert.equal(files.length, 2);
    for (const f of entries) {
      const path = join(root, 'manifests', f);
      assert.equal(mode(path), statSync(path).isDirectory() ? 0o700 : 0o600, path);
    }
    assert.equal(mode(join(root, 'git')), 0o700);
    for (const mirror of readdirSync(join(root, 'git'))) assert.equal(mode(join(root, 'git', mirror)), 0o700);
  });
});
