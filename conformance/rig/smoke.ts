/**
 * `npm run conformance -- smoke`: proves a rig that is up works end to end, using only rig.json (as the
 * corpus does): a bare Git repository with one Deployment under gitRoot, an Application for it (directory
 * source over gitBaseUrl, destination in-cluster) that the real Argo CD application controller reconciles
 * (status.sync.status set), a sync operation that creates the Deployment, the kube-controller-manager and
 * the kubelet stand-in rolling it out until Argo CD calls the app Healthy; then `argocd app get --core` and
 * `argocd admin cluster shards`. It removes what it made. Each step prints how long it took.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Kube } from './kube.js';
import { RIG_JSON } from './paths.js';
import { waitUntil } from './procs.js';
import type { KubeRigJson, RigJson } from './up.js';

export function readRig(): RigJson {
  let rig: RigJson | KubeRigJson;
  try {
    rig = JSON.parse(readFileSync(RIG_JSON, 'utf8')) as RigJson | KubeRigJson;
  } catch {
    throw new Error(`${RIG_JSON}: failed to read: the rig is not up (run "npm run conformance -- up")`);
  }
  if ('kubeOnly' in rig)
    throw new Error(`${RIG_JSON}: the rig runs Kubernetes alone (up --kube-only): Argo CD is needed here`);
  return rig;
}

/** A client for the rig from its admin kubeconfig (certificates embedded). */
export function rigClient(rig: RigJson, userAgent: string): { kube: Kube; cleanup: () => void } {
  const cfg = parse(readFileSync(rig.kubeconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const dir = mkdtempSync(join(tmpdir(), 'conformance-client-'));
  const write = (name: string, b64: string): string => {
    const f = join(dir, name);
    writeFileSync(f, Buffer.from(b64, 'base64'), { mode: 0o600 });
    return f;
  };
  const kube = new Kube({
    server: rig.server,
    ca: write('ca.crt', cfg.clusters[0]!.cluster['certificate-authority-data']),
    cert: write('client.crt', cfg.users[0]!.user['client-certificate-data']),
    key: write('client.key', cfg.users[0]!.user['client-key-data']),
    userAgent,
  });
  rmSync(dir, { recursive: true, force: true });
  return { kube, cleanup: () => kube.close() };
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports:
            - containerPort: 80
`;

function git(cwd: string, args: string[]): void {
  execFileSync('git', args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'conformance',
      GIT_AUTHOR_EMAIL: 'conformance@example.invalid',
      GIT_COMMITTER_NAME: 'conformance',
      GIT_COMMITTER_EMAIL: 'conformance@example.invalid',
    },
  });
}

type AppStatus = {
  sync?: { status?: string };
  health?: { status?: string };
  operationState?: { phase?: string; message?: string };
};

export async function smoke(say: (line: string) => void): Promise<void> {
  const rig = readRig();
  const { kube, cleanup } = rigClient(rig, 'conformance-smoke');
  const app = 'conformance-smoke';
  const ns = 'conformance-smoke';
  const appPath = `/apis/argoproj.io/v1alpha1/namespaces/${rig.argocdNamespace}/applications/${app}`;
  const step = async (what: string, fn: () => Promise<void>): Promise<void> => {
    const started = Date.now();
    await fn();
    say(`ok ${what} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  };
  const status = async (): Promise<AppStatus> => ((await kube.get(appPath))['status'] ?? {}) as AppStatus;
  try {
    await step('git repository smoke.git', async () => {
      const bare = join(rig.gitRoot, 'smoke.git');
      rmSync(bare, { recursive: true, force: true });
      git(rig.gitRoot, ['init', '--bare', '-q', '-b', 'main', bare]);
      const work = mkdtempSync(join(tmpdir(), 'conformance-smoke-'));
      try {
        git(work, ['init', '-q', '-b', 'main']);
        mkdirSync(join(work, 'web'));
        writeFileSync(join(work, 'web', 'deployment.yaml'), DEPLOYMENT);
        git(work, ['add', '.']);
        git(work, ['commit', '-q', '-m', 'web']);
        git(work, ['push', '-q', bare, 'main']);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    });
    await step('Application reconciled by Argo CD (status.sync.status)', async () => {
      await kube.create(`/apis/argoproj.io/v1alpha1/namespaces/${rig.argocdNamespace}/applications`, {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: app, namespace: rig.argocdNamespace },
        spec: {
          project: 'default',
          source: { repoURL: `${rig.gitBaseUrl}/smoke.git`, targetRevision: 'main', path: 'web' },
          destination: { server: 'https://kubernetes.default.svc', namespace: ns },
          syncPolicy: { syncOptions: ['CreateNamespace=true'] },
        },
      });
      await waitUntil('Application status.sync.status', async () => !!(await status()).sync?.status, {
        timeoutMs: 120_000,
      });
      const s = await status();
      if (s.sync?.status !== 'OutOfSync')
        throw new Error(`smoke: expected OutOfSync before the sync, got ${s.sync?.status}`);
    });
    await step('sync operation Succeeded, app Synced and Healthy', async () => {
      await kube.request(
        'PATCH',
        appPath,
        {
          operation: {
            initiatedBy: { username: 'conformance-smoke' },
            sync: { revision: 'main', syncOptions: ['CreateNamespace=true'] },
          },
        },
        'application/merge-patch+json',
      );
      await waitUntil(
        'sync to finish Healthy',
        async () => {
          const s = await status();
          if (s.operationState?.phase === 'Failed' || s.operationState?.phase === 'Error')
            throw new Error(`smoke: sync ${s.operationState.phase}: ${s.operationState.message}`);
          return (
            s.operationState?.phase === 'Succeeded' &&
            s.sync?.status === 'Synced' &&
            s.health?.status === 'Healthy'
          );
        },
        { timeoutMs: 180_000 },
      );
      const d = await kube.get<{ status?: { availableReplicas?: number } }>(
        `/apis/apps/v1/namespaces/${ns}/deployments/web`,
      );
      if (d.status?.availableReplicas !== 2)
        throw new Error(
          `smoke: Deployment web has ${d.status?.availableReplicas} available replicas, want 2`,
        );
    });
    const env = { ...process.env, KUBECONFIG: rig.kubeconfig };
    await step('argocd app get (through argocd-server)', async () => {
      const out = execFileSync(rig.argocd, ['app', 'get', app, '--server', rig.argocdServer, '--plaintext'], {
        env,
        encoding: 'utf8',
      });
      if (!/Healthy/.test(out) || !/Synced/.test(out))
        throw new Error(`smoke: argocd app get printed:\n${out}`);
    });
    await step('argocd admin cluster shards', async () => {
      const out = execFileSync(
        rig.argocd,
        ['admin', 'cluster', 'shards', '--replicas', '1', '--port-forward-redis=false', '--redis', rig.redis],
        { env, encoding: 'utf8' },
      );
      if (!/^SHARD\s+RESOURCES COUNT/m.test(out) || !/^0\s+\d+/m.test(out))
        throw new Error(`smoke: argocd admin cluster shards printed:\n${out}`);
    });
  } finally {
    await kube.request('DELETE', appPath).catch(() => undefined);
    await kube.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    cleanup();
  }
}
