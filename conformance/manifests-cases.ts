/**
 * The cases of conformance/manifests.ts: Applications whose rendered manifests are compared with Argo CD's.
 * - Git cases: the project's fixture charts and kustomizations (test/fixtures/helm/charts,
 *   test/fixtures/kustomize) in one Git repository on the rig's Git server.
 * - Repository cases: charts as users have them, served on loopback by this process and by Debian's
 *   `docker-registry` (test/support/helm-repo.ts), which the rig's repo-server reaches on the same machine:
 *   an HTTP chart repository (index.yaml; a version and a range), the same behind Basic auth and over HTTPS
 *   with a TLS client certificate, OCI registries with and without auth
 *   (a Helm source with `enableOCI`, and an `oci://` source), each private one through an Argo CD repository
 *   Secret; a multi-source app whose chart comes from a chart repository and its value file from Git
 *   (`$values`); a Git chart whose dependency names a repository Secret (`@name`); and a kustomization
 *   inflating a chart from the chart repository (argocd-cm `kustomize.buildOptions: --enable-helm`).
 */
import {
  ChartRepo,
  OciRegistry,
  clientCertificate,
  fixtureChart,
  packageChart,
} from '../test/support/helm-repo.js';
import { tempDir } from '../test/support/git.js';

export type Obj = Record<string, unknown>;

export interface ManifestCase {
  name: string;
  /** The app's one source (repoURL defaults to the cases' Git repository, targetRevision to main). */
  source?: Obj;
  /** Or its sources, in full (multi-source). */
  sources?: Obj[];
  /** A second source `{repoURL: <the cases' Git repository>, targetRevision: main, ref}`. */
  ref?: string;
  /** Why ours differs from Argo CD's, when it does by design. */
  expected?: string;
  /** Ours through `diff` against the rig's cluster (the destination cluster's version and API versions). */
  cluster?: boolean;
  /** argocd-cm data Argo CD and we read for this case (the live argocd-cm is set for it, then restored). */
  argocdCm?: Record<string, string>;
}

/** The cases that read only the Git repository; the destination namespace is the app's name. */
export const GIT_CASES: ManifestCase[] = [
  { name: 'helm-cluster-facts', source: { path: 'charts/capabilities' }, cluster: true },
  { name: 'helm-cluster-web', source: { path: 'charts/web' }, cluster: true },
  {
    name: 'helm-defaults',
    source: { path: 'charts/web' },
    expected:
      "render reads no cluster: .Capabilities.KubeVersion is helm's default, Argo CD's is the cluster's",
  },
  {
    name: 'helm-values',
    source: {
      path: 'charts/web',
      helm: {
        releaseName: 'rel',
        valueFiles: ['values-prod.yaml', 'missing.yaml'],
        ignoreMissingValueFiles: true,
        values: 'message: from values\nlist: [a, b]\n',
        parameters: [
          { name: 'replicas', value: '4' },
          { name: 'image', value: 'nginx:1.28,x', forceString: true },
        ],
        kubeVersion: '1.31.2',
        apiVersions: ['monitoring.coreos.com/v1'],
      },
    },
  },
  {
    name: 'helm-values-object',
    source: {
      path: 'charts/web',
      helm: {
        valuesObject: { message: 'from valuesObject', list: [1, 2] },
        values: 'message: ignored\n',
        skipCrds: true,
        skipTests: true,
        namespace: 'other',
        kubeVersion: 'v1.29.3+k3s1',
      },
    },
  },
  { name: 'helm-hooks', source: { path: 'charts/hooks' } },
  {
    name: 'helm-multi-source',
    source: {
      path: 'charts/web',
      helm: { valueFiles: ['$vals/charts/web/values-prod.yaml'], kubeVersion: '1.34.4' },
    },
    ref: 'vals',
  },
  {
    // Argo CD 3.6 runs its one helm (4.2.4) for "v3" too (util/helm/cmd.go NewCmd).
    name: 'helm-version-v3',
    source: { path: 'charts/web', helm: { version: 'v3', kubeVersion: '1.34.4' } },
  },
  {
    name: 'helm-local-dep',
    source: { path: 'charts/local-dep', helm: { kubeVersion: '1.34.4' } },
  },
  { name: 'kust-plain', source: { path: 'kustomize/overlay' } },
  {
    name: 'kust-options',
    source: {
      path: 'kustomize/overlay',
      kustomize: {
        namePrefix: 'pre-',
        nameSuffix: '-suf',
        images: ['nginx=registry.example.com/nginx:1.28'],
        replicas: [{ name: 'web', count: 3 }],
        commonLabels: { team: 'blue' },
        commonAnnotations: { owner: 'team-blue' },
        namespace: 'kust-ns',
        components: ['../component'],
        patches: [
          {
            target: { kind: 'Service', name: 'web' },
            patch: '- op: replace\n  path: /spec/ports/0/port\n  value: 8081\n',
          },
        ],
      },
    },
  },
  {
    name: 'kust-labels-without-selector',
    source: {
      path: 'kustomize/overlay',
      kustomize: { commonLabels: { tier: 'web' }, labelWithoutSelector: true, forceCommonLabels: true },
    },
  },
];

const USER = 'robot';
const PASSWORD = 'manifests-Pa55word';

/** An Argo CD repository Secret (`argocd.argoproj.io/secret-type: repository`) as it is stored. */
function repositorySecret(name: string, namespace: string, data: Record<string, string>): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: { 'argocd.argoproj.io/secret-type': 'repository' } },
    stringData: data,
  };
}

/** The loopback chart servers of the repository cases; `close()` stops them. */
export interface ChartServers {
  cases: ManifestCase[];
  /** Files the Git repository gets besides the fixtures (path -> text). */
  files: Record<string, string>;
  /** The repository Secrets, for the rig's Argo CD namespace and for our `--repositories-file`. */
  secrets: Obj[];
  close(): Promise<void>;
}

/**
 * Starts an HTTP chart repository (public and one with Basic auth) serving the fixture chart `web`, and
 * two `docker-registry`s (one with htpasswd auth) holding it at `charts/web`; returns the cases using them.
 */
export async function chartServers(
  helm: string,
  prefix: string,
  argocdNamespace: string,
  gitRepoURL: string,
): Promise<ChartServers> {
  const opened: { close(): Promise<void> }[] = [];
  try {
    const web = fixtureChart('web');
    const open = await new ChartRepo(helm).start([web]);
    opened.push(open);
    const basic = await new ChartRepo(helm, { basicAuth: { username: USER, password: PASSWORD } }).start([
      web,
    ]);
    opened.push(basic);
    // HTTPS requiring a client certificate (test/fixtures/clusters' CA, which Argo CD's repo-server does not
    // trust: the Secret says `insecure`, as it would without argocd-tls-certs-cm).
    const mtls = await new ChartRepo(helm, { tls: 'client-cert' }).start([web]);
    opened.push(mtls);
    const archive = packageChart(helm, web, tempDir('kg-manifests-chart-'));
    const oci = await new OciRegistry(helm).start();
    opened.push(oci);
    oci.push(archive, 'charts');
    const ociAuth = await new OciRegistry(helm, { username: USER, password: PASSWORD }).start();
    opened.push(ociAuth);
    ociAuth.push(archive, 'charts');

    const secret = (name: string, data: Record<string, string>) =>
      repositorySecret(`${prefix}${name}`, argocdNamespace, data);
    const auth = { username: USER, password: PASSWORD };
    const secrets = [
      // Named "charts": the umbrella chart's dependency `repository: "@charts"` resolves through it.
      secret('basic', { type: 'helm', name: 'charts', url: basic.url, ...auth }),
      secret('mtls', {
        type: 'helm',
        url: mtls.url,
        insecure: 'true',
        tlsClientCertData: clientCertificate().cert,
        tlsClientCertKey: clientCertificate().key,
      }),
      secret('oci', {
        type: 'helm',
        url: `${oci.host}/charts`,
        enableOCI: 'true',
        insecureOCIForceHttp: 'true',
      }),
      secret('oci-auth', {
        type: 'helm',
        url: `${ociAuth.host}/charts`,
        enableOCI: 'true',
        insecureOCIForceHttp: 'true',
        ...auth,
      }),
      secret('oci-source', {
        type: 'oci',
        url: `oci://${oci.host}/charts/web`,
        insecureOCIForceHttp: 'true',
      }),
    ];
    const kube = { kubeVersion: '1.34.4' };
    const chart = (repoURL: string, helmOptions: Obj = {}): Obj => ({
      repoURL,
      chart: 'web',
      targetRevision: '0.1.0',
      helm: { ...kube, ...helmOptions },
    });
    const cases: ManifestCase[] = [
      { name: 'repo-http', source: chart(open.url, { valueFiles: ['values-prod.yaml'] }) },
      {
        name: 'repo-http-range',
        source: { ...chart(open.url), targetRevision: '>=0.1.0 <1.0.0' },
      },
      { name: 'repo-http-basic-auth', source: chart(basic.url, { releaseName: 'private' }) },
      { name: 'repo-https-client-cert', source: chart(mtls.url) },
      { name: 'repo-oci', source: chart(`${oci.host}/charts`) },
      {
        name: 'repo-oci-basic-auth',
        source: chart(`${ociAuth.host}/charts`, { parameters: [{ name: 'replicas', value: '3' }] }),
      },
      {
        name: 'oci-source',
        source: {
          repoURL: `oci://${oci.host}/charts/web`,
          path: '.',
          targetRevision: '0.1.0',
          helm: { ...kube, valueFiles: ['values-prod.yaml'] },
        },
      },
      {
        name: 'repo-values-from-git',
        sources: [
          chart(open.url, { valueFiles: ['$vals/charts/web/values-prod.yaml'] }),
          { repoURL: gitRepoURL, targetRevision: 'main', ref: 'vals' },
        ],
      },
      { name: 'repo-dependency-by-name', source: { path: 'charts/umbrella', helm: kube } },
      {
        name: 'kust-enable-helm',
        source: { path: 'kustomize/helm-inflate' },
        cluster: true,
        argocdCm: { 'kustomize.buildOptions': '--enable-helm' },
      },
    ];
    const files = {
      // kustomize's helmCharts pull from the chart repository (kustomize runs `helm pull --repo`).
      'kustomize/helm-inflate/kustomization.yaml': [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'helmCharts:',
        '  - name: web',
        `    repo: ${open.url}`,
        '    version: 0.1.0',
        '    releaseName: inflated',
        '    valuesInline: {replicas: 2, message: inflated}',
        'commonLabels: {inflated: "true"}',
        '',
      ].join('\n'),
    };
    return {
      cases,
      files,
      secrets,
      close: async () => {
        for (const s of opened) await s.close();
      },
    };
  } catch (err) {
    for (const s of opened) await s.close();
    throw err;
  }
}
