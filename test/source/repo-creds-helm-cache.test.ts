/**
 * Secrets at rest: the manifest cache is 0700/0600, an existing world-readable cache is fixed on first use.
 * (Helm repository credentials, with the real helm: helm-repos.test.ts.)
 */
import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { parseApplication } from '../../src/apps/index.js';
import { createSourceService } from '../../src/source/index.js';
import { cm, TestRepo, tempDir } from '../support/git.js';

const mode = (path: string) => statSync(path).mode & 0o777;

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
