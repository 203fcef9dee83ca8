/** Generated inputs for benchmarks (deterministic). */
import { seededRandom, randomUid } from '../test/support/random.js';

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
