/**
 * Shards cases, one at a time (Argo CD counts every cluster Secret of its namespace): the case's cluster
 * Secrets are created, `argocd admin cluster stats` and `kubectl gitops shards` read the same namespace,
 * and each cluster's shard is compared; then the Secrets are deleted.
 */
import { fill, sideName, type Case, type Obj } from './case.js';
import { CLI, type Env } from './env.js';
import { run } from './kubectl.js';
import { compareFields, replaceTokens } from './normalise.js';
import type { CaseOutcome } from './batch.js';

/**
 * `argocd admin cluster stats` table rows: SERVER SHARD CONNECTION ... -> server -> shard. (`admin cluster
 * shards` prints one row per shard with its resource count, not which cluster is where.)
 */
export function parseArgoShards(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length >= 2 && /^https?:\/\//.test(cols[0]!) && /^-?\d+$/.test(cols[1]!))
      out.set(cols[0]!, cols[1]!);
  }
  return out;
}

/** Our `shards -o json` to server -> shard under one algorithm. */
export function parseOurShards(json: Obj | undefined, algorithm: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of (json?.clusters ?? []) as Obj[]) {
    const s = c.shards?.[algorithm] ?? c.shard;
    if (c.server !== undefined && s !== undefined)
      out.set(String(c.server), String(typeof s === 'object' ? s.shard : s));
  }
  return out;
}

export async function runShards(env: Env, c: Case): Promise<CaseOutcome> {
  const out: CaseOutcome = {
    id: c.id,
    name: c.name,
    family: c.family,
    phases: ['shards'],
    rows: [],
    notRun: [],
    notes: [],
  };
  const spec = c.shards!;
  const values = { ns: sideName(c, 'a'), argocdNs: env.argocdNs, repoUrl: () => '' };
  const secrets = spec.clusters.map((s) => fill(s, values));
  const algorithm = spec.algorithm ?? 'legacy';
  const errs = await env.kubectl.create(secrets);
  for (const e of errs) out.notes.push(`set-up: ${e}`);
  try {
    const r = await run(CLI, [
      'shards',
      '--kubeconfig',
      env.ourKubeconfig,
      '--argocd-namespace',
      env.argocdNs,
      '--replicas',
      String(spec.replicas),
      '--algorithm',
      algorithm,
      '-o',
      'json',
    ]);
    let ourJson: Obj | undefined;
    try {
      ourJson = JSON.parse(r.stdout) as Obj;
    } catch {
      out.notes.push(
        `shards: ours printed no JSON (exit ${r.code}): ${r.stderr.trim().split('\n').slice(-1)[0]}`,
      );
    }
    const ours = parseOurShards(ourJson, algorithm);
    let argo: Map<string, string> | undefined;
    if (env.argocd) {
      const a = await run(
        env.argocd,
        [
          'admin',
          'cluster',
          'stats',
          '--replicas',
          String(spec.replicas),
          '--sharding-method',
          algorithm,
          ...(env.redis ? ['--port-forward-redis=false', '--redis', env.redis] : []),
        ],
        {
          env: { KUBECONFIG: env.argocdKubeconfig ?? '', ARGOCD_NAMESPACE: env.argocdNs },
        },
      );
      if (a.code !== 0)
        out.notes.push(
          `shards: argocd admin cluster stats failed: ${a.stderr.trim().split('\n').slice(-1)[0]}`,
        );
      argo = parseArgoShards(a.stdout);
    }
    const tokens = new Map([[values.ns, `${c.id}-X`]]);
    const servers = new Set(secrets.map((s) => String(s.stringData.server)));
    const pick = (m: Map<string, string> | undefined) =>
      m
        ? Object.fromEntries([...m].filter(([s]) => servers.has(s) || s === 'https://kubernetes.default.svc'))
        : undefined;
    out.rows.push(
      ...compareFields(
        c.id,
        'shards',
        'shard',
        replaceTokens(pick(argo), tokens),
        replaceTokens(pick(ours), tokens),
      ),
    );
  } finally {
    await env.kubectl.run([
      'delete',
      'secret',
      '-n',
      env.argocdNs,
      '--ignore-not-found',
      ...secrets.map((s) => s.metadata.name),
    ]);
  }
  return out;
}
