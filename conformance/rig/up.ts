/**
 * `npm run conformance -- up`: builds what is missing (build.ts), then starts the rig on loopback, each
 * process detached with its log in logs/ (procs.ts), and writes rig.json (the contract in
 * docs/conformance.md):
 *   etcd (Debian's etcd-server) -> kube-apiserver (audit log) -> kube-controller-manager -> the kubelet
 *   stand-in (kubelet.ts) and the git server (git-server.ts) -> Argo CD's CRDs, config maps, secret and
 *   default project -> redis (Debian's redis-server) -> argocd-repo-server -> argocd-application-controller.
 * Each step waits until the process answers; a step that fails stops everything started so far.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { bundledToolPath } from '../../src/source/render/tool-versions.js';
import { argocdBuild, buildAll, kubernetesBuild } from './build.js';
import { makePki, writeKubeconfig, type Pki } from './certs.js';
import { HttpError, Kube, type Obj } from './kube.js';
import { ARGOCD_NAMESPACE, BIN, CONFORMANCE_DIR, GIT_ROOT, LOGS, REPO_ROOT, RIG_JSON, RUN } from './paths.js';
import {
  freePorts,
  isRunning,
  portOpen,
  readState,
  startProcess,
  stopProcess,
  waitUntil,
  writeState,
  type ProcSpec,
  type RigState,
} from './procs.js';

/** The order `up` starts processes in; `down` stops them in reverse. */
export const PROCESS_ORDER = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kubelet-standin',
  'git-server',
  'redis',
  'argocd-repo-server',
  'argocd-server',
  'argocd-application-controller',
];
export const CONTROLLER = 'argocd-application-controller';
/**
 * Argo CD's `application.namespaces` on the rig: the corpus puts apps outside Argo CD's namespace in
 * `<case>-<side>-apps` (family app-namespaces), each still held to its project's `sourceNamespaces`.
 */
export const APPLICATION_NAMESPACES = '*-apps';

const AUDIT_POLICY = `# The conformance rig's audit policy: every write (with its dry-run flag in requestURI), at Metadata level
# (verb, user, userAgent, objectRef: resource, namespace, name, subresource); reads and Lease renewals are
# not logged.
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: None
    resources:
      - group: coordination.k8s.io
        resources: ["leases"]
  - level: Metadata
    verbs: ["create", "update", "patch", "delete", "deletecollection"]
`;

function which(cmd: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function needCommand(cmd: string, pkg: string): string {
  const path = which(cmd);
  if (!path) throw new Error(`${cmd}: not found: install Debian's ${pkg} (apt-get install -y ${pkg})`);
  return path;
}

/**
 * kube-apiserver 1.34 serves a watch without a resourceVersion (or with "0") that allows bookmarks as a
 * streaming list (the WatchList feature, on by default: k8s.io/apimachinery
 * pkg/apis/meta/internalversion/defaults.go sets sendInitialEvents), which needs etcd's RequestWatchProgress
 * (etcd 3.4.31+, 3.5.13+). On an older etcd (Debian bookworm's is 3.4.23) every such watch ends at once
 * with an ERROR event "a watch stream was requested by the client but the required storage feature
 * RequestWatchProgress is disabled" (apiserver pkg/storage/cacher/cacher.go), which no real cluster's
 * newer etcd does: there the API server is started with WatchList off, so such a watch gets what it gets
 * on a cluster (the current objects as ADDED events, then changes), without the initial-events-end bookmark.
 */
export function watchListGate(etcdVersion: string): string[] {
  const [major = 0, minor = 0, patch = 0] = etcdVersion.split('.').map((n) => parseInt(n, 10));
  const supported =
    major > 3 || (major === 3 && (minor > 5 || (minor === 5 && patch >= 13) || (minor === 4 && patch >= 31)));
  return supported ? [] : ['--feature-gates=WatchList=false'];
}

function firstLine(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .split('\n')[0]!
      .trim();
  } catch {
    return 'unknown';
  }
}

/** Where the go command unpacked the Argo CD module (its CRDs are read from there). */
function argocdModuleDir(): string {
  const b = argocdBuild();
  const dir = execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'github.com/argoproj/argo-cd/v3'], {
    cwd: join(CONFORMANCE_DIR, 'argocd'),
    env: { ...process.env, ...b.env },
    encoding: 'utf8',
  }).trim();
  if (!dir || !existsSync(join(dir, 'manifests', 'crds')))
    throw new Error(`argocd: failed to find the module's manifests/crds (go list gave "${dir}")`);
  return dir;
}

const partOf = (name: string): Record<string, string> => ({
  'app.kubernetes.io/name': name,
  'app.kubernetes.io/part-of': 'argocd',
});

async function installArgoCdResources(kube: Kube, moduleDir: string): Promise<void> {
  await kube.create(
    '/api/v1/namespaces',
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ARGOCD_NAMESPACE } },
    true,
  );
  const crdDir = join(moduleDir, 'manifests', 'crds');
  const names: string[] = [];
  for (const file of ['application-crd.yaml', 'applicationset-crd.yaml', 'appproject-crd.yaml']) {
    for (const doc of parseAllDocuments(readFileSync(join(crdDir, file), 'utf8'))) {
      const crd = doc.toJSON() as Obj | null;
      if (!crd?.kind) continue;
      await kube.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd, true);
      names.push(crd.metadata?.name ?? '');
    }
  }
  for (const name of names) {
    await waitUntil(
      `CustomResourceDefinition ${name}`,
      async () => {
        const crd = await kube.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
        );
        return !!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
      },
      { timeoutMs: 120_000 },
    );
  }
  const cm = (name: string, data: Record<string, string> = {}): Obj => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ARGOCD_NAMESPACE, labels: partOf(name) },
    data,
  });
  const cms = `/api/v1/namespaces/${ARGOCD_NAMESPACE}/configmaps`;
  for (const name of [
    'argocd-cm',
    'argocd-rbac-cm',
    'argocd-ssh-known-hosts-cm',
    'argocd-tls-certs-cm',
    'argocd-gpg-keys-cm',
  ])
    await kube.create(cms, cm(name), true);
  // The stock manifests feed argocd-cmd-params-cm's keys to the processes' environment; the rig passes
  // the same value as flags (below), and `kubectl gitops controller` reads it from here.
  await kube.create(
    cms,
    cm('argocd-cmd-params-cm', { 'application.namespaces': APPLICATION_NAMESPACES }),
    true,
  );
  await kube.create(
    `/api/v1/namespaces/${ARGOCD_NAMESPACE}/secrets`,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name: 'argocd-secret', namespace: ARGOCD_NAMESPACE, labels: partOf('argocd-secret') },
      stringData: { 'server.secretkey': randomBytes(32).toString('base64') },
    },
    true,
  );
  // argocd-server creates the default project at start; the rig runs no argocd-server, so it does.
  await kube.create(
    `/apis/argoproj.io/v1alpha1/namespaces/${ARGOCD_NAMESPACE}/appprojects`,
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'default', namespace: ARGOCD_NAMESPACE },
      spec: {
        sourceRepos: ['*'],
        destinations: [{ server: '*', namespace: '*' }],
        clusterResourceWhitelist: [{ group: '*', kind: '*' }],
      },
    },
    true,
  );
}

/**
 * What `up --kube-only` writes: the real kube-apiserver, kube-controller-manager and the kubelet stand-in,
 * no Argo CD (our own tests and benchmarks against the real server need nothing more).
 */
export interface KubeRigJson {
  kubeOnly: true;
  kubeconfig: string;
  server: string;
  /** Absent when started with `--no-audit` (the API server then writes no audit log). */
  auditLog?: string;
  logs: string;
  versions: { kubernetes: string; etcd: string; go: string };
  pids: Record<string, number>;
  startedAt: string;
}

export interface RigJson {
  kubeconfig: string;
  argocdKubeconfig: string;
  server: string;
  argocdNamespace: string;
  argocd: string;
  auditLog: string;
  gitRoot: string;
  gitBaseUrl: string;
  logs: string;
  redis: string;
  /** argocd-server's address: `argocd --server <it> --plaintext app get NAME` (auth is off). */
  argocdServer: string;
  repoServer: string;
  versions: { kubernetes: string; argocd: string; etcd: string; redis: string; go: string };
  controller: { stop: string; start: string; pid: number; metricsPort: number };
  pids: Record<string, number>;
  startedAt: string;
}

async function startAll(
  state: RigState,
  say: (line: string) => void,
  kubeOnly: boolean,
  audit: boolean,
): Promise<RigJson | KubeRigJson> {
  const etcdBin = needCommand('etcd', 'etcd-server');
  const etcdVersion = firstLine(etcdBin, ['--version']).replace(/^etcd Version:\s*/, '');
  const redisBin = kubeOnly ? '' : needCommand('redis-server', 'redis-server');
  needCommand('openssl', 'openssl');
  needCommand('git', 'git');
  const k8s = kubernetesBuild();
  const argo = kubeOnly ? undefined : argocdBuild();
  const moduleDir = kubeOnly ? '' : argocdModuleDir();

  const [
    etcdClient,
    etcdPeer,
    apiPort,
    kcmPort,
    redisPort,
    repoPort,
    repoMetrics,
    ctrlMetrics,
    gitPort,
    argoApi,
    argoApiMetrics,
  ] = (await freePorts(11)) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const pki: Pki = makePki(join(RUN, 'pki'));
  const server = `https://127.0.0.1:${apiPort}`;
  const kubeconfig = (id: string): string => join(RUN, `${id}.kubeconfig`);
  for (const id of ['admin', 'kube-controller-manager', 'argocd'])
    writeKubeconfig(kubeconfig(id), pki, server, id, ARGOCD_NAMESPACE);
  const auditPolicy = join(RUN, 'audit-policy.yaml');
  writeFileSync(auditPolicy, AUDIT_POLICY);
  const auditLog = join(LOGS, 'audit.log');
  mkdirSync(GIT_ROOT, { recursive: true });
  state.info = {
    server,
    ports: { etcdClient, etcdPeer, apiPort, kcmPort, redisPort, repoPort, repoMetrics, ctrlMetrics, gitPort },
  };
  writeState(state);

  const start = (spec: ProcSpec) => {
    say(`starting ${spec.name}`);
    return startProcess(state, spec);
  };

  const etcd = start({
    name: 'etcd',
    command: etcdBin,
    args: [
      '--name',
      'rig',
      '--data-dir',
      join(RUN, 'etcd'),
      '--listen-client-urls',
      `http://127.0.0.1:${etcdClient}`,
      '--advertise-client-urls',
      `http://127.0.0.1:${etcdClient}`,
      '--listen-peer-urls',
      `http://127.0.0.1:${etcdPeer}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${etcdPeer}`,
      '--initial-cluster',
      `rig=http://127.0.0.1:${etcdPeer}`,
    ],
  });
  await waitUntil(
    'etcd',
    async () =>
      ((await (await fetch(`http://127.0.0.1:${etcdClient}/health`)).json()) as { health?: string })
        .health === 'true',
    { timeoutMs: 30_000, entry: etcd },
  );

  const apiserver = start({
    name: 'kube-apiserver',
    command: join(BIN, 'kube-apiserver'),
    args: [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(RUN, 'apiserver')}`,
      `--tls-cert-file=${pki.serverCert}`,
      `--tls-private-key-file=${pki.serverKey}`,
      `--client-ca-file=${pki.caCert}`,
      `--service-account-key-file=${pki.saPub}`,
      `--service-account-signing-key-file=${pki.saKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      '--service-cluster-ip-range=10.96.0.0/16',
      '--authorization-mode=Node,RBAC',
      '--allow-privileged=true',
      // The API server's own Endpoints for `kubernetes` may not name a loopback address; nothing needs it.
      '--endpoint-reconciler-type=none',
      // Blocking audit costs every write time; `up --kube-only --no-audit` (benchmarks) leaves it off.
      ...(audit
        ? [
            `--audit-policy-file=${auditPolicy}`,
            `--audit-log-path=${auditLog}`,
            '--audit-log-format=json',
            '--audit-log-mode=blocking',
          ]
        : []),
      '--profiling=false',
      ...watchListGate(etcdVersion),
    ],
  });
  const admin = new Kube({ server, ca: pki.caCert, ...pki.client('admin'), userAgent: 'conformance-rig' });
  try {
    await waitUntil(
      'kube-apiserver',
      async () => (await admin.request<string>('GET', '/readyz')) !== undefined,
      {
        timeoutMs: 120_000,
        entry: apiserver,
      },
    );

    const kcm = start({
      name: 'kube-controller-manager',
      command: join(BIN, 'kube-controller-manager'),
      args: [
        `--kubeconfig=${kubeconfig('kube-controller-manager')}`,
        `--authentication-kubeconfig=${kubeconfig('kube-controller-manager')}`,
        `--authorization-kubeconfig=${kubeconfig('kube-controller-manager')}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${kcmPort}`,
        `--cert-dir=${join(RUN, 'kube-controller-manager')}`,
        `--service-account-private-key-file=${pki.saKey}`,
        `--root-ca-file=${pki.caCert}`,
        '--use-service-account-credentials=true',
        // No kubelet renews the Node's lease: without this the node lifecycle controller would mark the
        // stand-in's Node unreachable and evict every Pod.
        '--controllers=*,-node-lifecycle-controller',
        '--leader-elect=false',
      ],
    });
    await waitUntil(
      'kube-controller-manager (the default ServiceAccount)',
      async () => {
        await admin.get('/api/v1/namespaces/default/serviceaccounts/default');
        return true;
      },
      { timeoutMs: 120_000, entry: kcm },
    );

    const standinConfig = join(RUN, 'kubelet-standin.json');
    writeFileSync(standinConfig, JSON.stringify({ server, ca: pki.caCert, ...pki.client('kubelet') }));
    const node = process.execPath;
    const standin = start({
      name: 'kubelet-standin',
      command: node,
      args: ['--import', 'tsx', join(CONFORMANCE_DIR, 'rig', 'kubelet.ts'), standinConfig],
      cwd: REPO_ROOT,
      env: { CONFORMANCE_KUBERNETES_VERSION: k8s.version },
    });
    await waitUntil(
      'kubelet stand-in (Node Ready)',
      async () => {
        const n = await admin.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
          '/api/v1/nodes/conformance-node',
        );
        return !!n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      },
      { timeoutMs: 60_000, entry: standin },
    );
    if (kubeOnly) {
      const kubeRig: KubeRigJson = {
        kubeOnly: true,
        kubeconfig: kubeconfig('admin'),
        server,
        ...(audit ? { auditLog } : {}),
        logs: LOGS,
        versions: {
          kubernetes: k8s.version,
          etcd: etcdVersion,
          go: firstLine('go', ['env', 'GOVERSION']),
        },
        pids: Object.fromEntries(Object.entries(state.procs).map(([k, v]) => [k, v.pid])),
        startedAt: new Date().toISOString(),
      };
      writeFileSync(RIG_JSON, JSON.stringify(kubeRig, null, 2) + '\n');
      return kubeRig;
    }
    const git = start({
      name: 'git-server',
      command: node,
      args: ['--import', 'tsx', join(CONFORMANCE_DIR, 'rig', 'git-server.ts'), GIT_ROOT, String(gitPort)],
      cwd: REPO_ROOT,
    });
    await waitUntil('git server', () => portOpen(gitPort), { timeoutMs: 60_000, entry: git });

    say('installing Argo CD CRDs, config maps, argocd-secret and the default AppProject');
    await installArgoCdResources(admin, moduleDir);

    mkdirSync(join(RUN, 'redis'), { recursive: true });
    const redis = start({
      name: 'redis',
      command: redisBin,
      args: [
        '--bind',
        '127.0.0.1',
        '--port',
        String(redisPort),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        join(RUN, 'redis'),
      ],
    });
    await waitUntil('redis', () => portOpen(redisPort), { timeoutMs: 30_000, entry: redis });

    const argocd = join(BIN, 'argocd');
    const argoHome = join(RUN, 'argocd-home');
    for (const d of ['tls', 'ssh', 'gpg/source', 'gpg/keys', 'plugins', 'tmp'])
      mkdirSync(join(argoHome, d), { recursive: true });
    // What Argo CD's image puts on PATH (its Dockerfile): `argocd` (git's askpass helper is `argocd` run as
    // argocd-git-ask-pass) and the module's hack/git-verify-wrapper.sh and gpg-wrapper.sh, which the
    // repo-server runs for every Git revision it renders.
    const argoPath = join(RUN, 'argocd-path');
    mkdirSync(argoPath, { recursive: true });
    symlinkSync(argocd, join(argoPath, 'argocd'));
    for (const script of ['git-verify-wrapper.sh', 'gpg-wrapper.sh']) {
      copyFileSync(join(moduleDir, 'hack', script), join(argoPath, script));
      chmodSync(join(argoPath, script), 0o755);
    }
    // The image also holds the helm and kustomize of its hack/tool-versions.sh: the ones `npm run tools`
    // builds (src/source/render/tool-versions.ts). Without them the repo-server would take whatever is on
    // the PATH, or fail every kustomize and Helm case with `exec: "kustomize": executable file not found`.
    for (const tool of ['helm', 'kustomize'] as const) {
      const path = bundledToolPath(tool);
      if (existsSync(path)) symlinkSync(path, join(argoPath, tool));
      else
        say(
          `conformance: ${path} is missing (npm run tools builds it): Argo CD's repo-server takes ${tool} from PATH`,
        );
    }
    const repo = start({
      name: 'argocd-repo-server',
      command: argocd,
      args: [
        '--address',
        '127.0.0.1',
        '--port',
        String(repoPort),
        '--metrics-address',
        '127.0.0.1',
        '--metrics-port',
        String(repoMetrics),
        '--redis',
        `127.0.0.1:${redisPort}`,
        '--disable-tls',
        // Its default names a file of the in-cluster mount, which may not be set with --disable-tls.
        '--client-ca-path=',
        '--logformat',
        'text',
      ],
      env: {
        ARGOCD_BINARY_NAME: 'argocd-repo-server',
        PATH: `${argoPath}:${process.env['PATH'] ?? ''}`,
        HOME: argoHome,
        TMPDIR: join(argoHome, 'tmp'),
        ARGOCD_GPG_ENABLED: 'false',
        ARGOCD_TLS_DATA_PATH: join(argoHome, 'tls'),
        ARGOCD_SSH_DATA_PATH: join(argoHome, 'ssh'),
        ARGOCD_GPG_DATA_PATH: join(argoHome, 'gpg/source'),
        ARGOCD_GNUPGHOME: join(argoHome, 'gpg/keys'),
        ARGOCD_PLUGINSOCKFILEPATH: join(argoHome, 'plugins'),
      },
    });
    await waitUntil('argocd-repo-server', () => portOpen(repoPort), { timeoutMs: 60_000, entry: repo });

    const controllerSpec: ProcSpec = {
      name: CONTROLLER,
      command: argocd,
      args: [
        `--kubeconfig=${kubeconfig('argocd')}`,
        `--namespace=${ARGOCD_NAMESPACE}`,
        `--redis=127.0.0.1:${redisPort}`,
        `--repo-server=127.0.0.1:${repoPort}`,
        '--repo-server-plaintext',
        `--metrics-port=${ctrlMetrics}`,
        `--application-namespaces=${APPLICATION_NAMESPACES}`,
        '--logformat=text',
      ],
      env: {
        ARGOCD_BINARY_NAME: CONTROLLER,
        // The in-cluster destination (https://kubernetes.default.svc) is $KUBECONFIG's cluster
        // (Cluster.rawRestConfig in Argo CD's types.go).
        ARGOCD_FAKE_IN_CLUSTER: 'true',
        KUBECONFIG: kubeconfig('argocd'),
        HOSTNAME: `${CONTROLLER}-0`,
        HOME: argoHome,
        TMPDIR: join(argoHome, 'tmp'),
      },
    };
    // argocd-server (API only, no UI, auth off, plaintext, loopback): the CLI's way in that needs no
    // port-forward (`argocd --core` port-forwards to repo-server and redis Pods, which need a kubelet).
    const apiServer = start({
      name: 'argocd-server',
      command: argocd,
      args: [
        `--kubeconfig=${kubeconfig('argocd')}`,
        `--namespace=${ARGOCD_NAMESPACE}`,
        '--address=127.0.0.1',
        `--port=${argoApi}`,
        `--metrics-port=${argoApiMetrics}`,
        '--insecure',
        '--disable-auth',
        `--redis=127.0.0.1:${redisPort}`,
        `--repo-server=127.0.0.1:${repoPort}`,
        '--repo-server-plaintext',
        `--staticassets=${join(argoHome, 'static')}`,
        `--application-namespaces=${APPLICATION_NAMESPACES}`,
        '--logformat=text',
      ],
      env: {
        ARGOCD_BINARY_NAME: 'argocd-server',
        ARGOCD_FAKE_IN_CLUSTER: 'true',
        KUBECONFIG: kubeconfig('argocd'),
        HOME: argoHome,
        TMPDIR: join(argoHome, 'tmp'),
      },
    });
    await waitUntil('argocd-server', () => portOpen(argoApi), { timeoutMs: 60_000, entry: apiServer });
    state.info['controllerSpec'] = controllerSpec;
    const ctrl = start(controllerSpec);
    await waitUntil('argocd-application-controller', () => portOpen(ctrlMetrics), {
      timeoutMs: 60_000,
      entry: ctrl,
    });

    const pids = Object.fromEntries(Object.entries(state.procs).map(([k, v]) => [k, v.pid]));
    const rig: RigJson = {
      kubeconfig: kubeconfig('admin'),
      argocdKubeconfig: kubeconfig('argocd'),
      server,
      argocdNamespace: ARGOCD_NAMESPACE,
      argocd,
      auditLog,
      gitRoot: GIT_ROOT,
      gitBaseUrl: `http://127.0.0.1:${gitPort}`,
      logs: LOGS,
      redis: `127.0.0.1:${redisPort}`,
      argocdServer: `127.0.0.1:${argoApi}`,
      repoServer: `127.0.0.1:${repoPort}`,
      versions: {
        kubernetes: k8s.version,
        argocd: argo?.version ?? '',
        etcd: etcdVersion,
        redis: firstLine(redisBin, ['--version']).replace(/^Redis server v=(\S+).*/, '$1'),
        go: firstLine('go', ['env', 'GOVERSION']),
      },
      controller: {
        stop: 'npm run conformance -- controller stop',
        start: 'npm run conformance -- controller start',
        pid: ctrl.pid,
        metricsPort: ctrlMetrics,
      },
      pids,
      startedAt: new Date().toISOString(),
    };
    writeFileSync(RIG_JSON, JSON.stringify(rig, null, 2) + '\n');
    return rig;
  } finally {
    admin.close();
  }
}

export async function up(
  say: (line: string) => void,
  opts: { kubeOnly?: boolean; noAudit?: boolean } = {},
): Promise<RigJson | KubeRigJson> {
  if (opts.noAudit && !opts.kubeOnly)
    throw new Error('conformance rig: --no-audit needs --kube-only (the corpus compares audit logs)');
  const existing = readState();
  const alive = Object.values(existing.procs).filter((p) => isRunning(p));
  if (alive.length > 0)
    throw new Error(
      `conformance rig: already up (${alive.map((p) => p.name).join(', ')}): run "npm run conformance -- down" first`,
    );
  const timings = await buildAll(say, opts);
  for (const t of timings) if (!t.skipped) say(`build: ${t.output} ${t.seconds}s`);
  rmSync(RUN, { recursive: true, force: true });
  rmSync(LOGS, { recursive: true, force: true });
  rmSync(RIG_JSON, { force: true });
  mkdirSync(RUN, { recursive: true });
  mkdirSync(LOGS, { recursive: true });
  const state: RigState = { procs: {}, info: {} };
  writeState(state);
  try {
    return await startAll(state, say, opts.kubeOnly === true, opts.noAudit !== true);
  } catch (e) {
    say('start-up failed: stopping what was started');
    await down(() => {});
    throw e instanceof HttpError ? new Error(`conformance rig: failed to start: ${e.message}`) : e;
  }
}

/** Stops every process of the rig, last started first; removes rig.json. Returns the names stopped. */
export async function down(say: (line: string) => void): Promise<string[]> {
  const state = readState();
  const names = Object.keys(state.procs).sort((a, b) => PROCESS_ORDER.indexOf(b) - PROCESS_ORDER.indexOf(a));
  const stopped: string[] = [];
  for (const name of names) {
    if (await stopProcess(state, name)) {
      stopped.push(name);
      say(`stopped ${name}`);
    }
  }
  rmSync(RIG_JSON, { force: true });
  return stopped;
}
