/** Generated inputs for benchmarks (deterministic). */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom, randomUid } from '../test/support/random.js';

/**
 * A Git repository at `repo` (created) with one commit holding `apps/app-<i>/all.yaml` = `manifests(i)` for
 * each of `count` apps: the app repository the refresh, sync and soak benches render.
 */
export function writeAppRepo(
  repo: string,
  count: number,
  manifests: (i: number) => string,
  message: string,
): void {
  for (let i = 0; i < count; i++) {
    mkdirSync(join(repo, 'apps', `app-${i}`), { recursive: true });
    writeFileSync(join(repo, 'apps', `app-${i}`, 'all.yaml'), manifests(i));
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], {
      cwd: repo,
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', message);
}

/** `n` cluster Secrets as a multi-document YAML string, with real-looking UIDs. */
export function clusterSecretsYaml(n: number, seed = 1): string {
  const rand = seededRandom(seed);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const docs: string[] = [];
  for (let i = 0; i < n; i++) {
    docs.push(
      [
        'apiVersion: v1',
        'kind: Secret',
        'metadata:',
        `  name: cluster-${i}`,
        '  namespace: argocd',
        `  uid: ${randomUid(rand)}`,
        '  labels: {argocd.argoproj.io/secret-type: cluster}',
        'data:',
        `  name: ${b64(`cluster-${i}`)}`,
        `  server: ${b64(`https://cluster-${i}.example.com`)}`,
      ].join('\n'),
    );
  }
  return docs.join('\n---\n') + '\n';
}
