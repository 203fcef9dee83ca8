/**
 * Charts from where users keep them, with the real helm 4.2.4 (`npm run tools`) through the source service,
 * as Argo CD 3.6's repo-server fetches them: an HTTP chart repository on loopback, the same behind Basic auth
 * and behind TLS client certificates (Argo CD repository Secrets of `type: helm`), an OCI registry (Debian's
 * docker-registry on loopback, with and without auth, `enableOCI`), an `oci://` source, multi-source
 * `$values`, dependencies named by a repository Secret (`@name`), and dependencies that cannot be reached
 * (issue 34 §4). Every helm command is recorded: no credential is ever on a command line or in a message.
 */
import { strict as assert } from 'node:assert';
import { cpSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { parseApplication } from '../../src/apps/index.js';
import {
  createSourceService,
  execProcess,
  type Exec,
  type RepositoryObject,
} from '../../src/source/index.js';
import { TestRepo, tempDir } from '../support/git.js';
import {
  ChartRepo,
  clientCertificate,
  closedPort,
  fixtureChart,
  OciRegistry,
  packageChart,
  registrySkip,
} from '../support/helm-repo.js';
import { repoSecret } from '../support/repositories.js';
import { realTool } from '../support/tools.js';

const helm = realTool('helm');
const USER = 'robot';
const PASSWORD = 'helm-Pa55word';

// Deep reads of rendered objects: the assertions check the shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

interface Call {
  command: string;
  args: readonly string[];
  env: Record<string, string | undefined>;
  repositoriesMode?: number;
}

/** Renders one app (YAML spec) through a fresh source service; returns the objects and every command run. */
async function renderApp(spec: string, repositories: RepositoryObject[] = []) {
  const calls: Call[] = [];
  const exec: Exec = (command, args, options) => {
    const call: Call = { command, args, env: options?.env ?? {} };
    const home = options?.env?.['HELM_CONFIG_HOME'];
    if (home) {
      try {
        call.repositoriesMode = statSync(join(home, 'repositories.yaml')).mode & 0o777;
      } catch {
        // no repositories.yaml yet
      }
    }
    calls.push(call);
    return execProcess(command, args, options);
  };
  const service = createSourceService({
    cacheRoot: tempDir('kg-cache-'),
    helmPath: helm.path,
    exec,
    ...(repositories.length ? { repositories: async () => repositories } : {}),
  });
  const app = parseApplication(
    parse(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: charted, namespace: argocd}
spec:
  project: default
${spec}
  destination: {server: https://kubernetes.default.svc, namespace: web}
`) as never,
    'test',
  );
  try {
    const rendered = await service.renderApp(app);
    return { objects: rendered.objects as Obj[], calls, rendered };
  } catch (err) {
    (err as { calls?: Call[] }).calls = calls;
    throw err;
  } finally {
    await service.close();
  }
}

const helmCalls = (calls: Call[]) =>
  calls.filter((c) => c.command === helm.path).map((c) => c.args.join(' '));
const configMap = (objects: Obj[]) => objects.find((o) => o['kind'] === 'ConfigMap')!;

function assertNoCredentials(calls: Call[], ...values: string[]) {
  for (const c of calls) {
    const line = [c.command, ...c.args].join(' ');
    for (const v of values) assert.ok(!line.includes(v), `credential on a command line: ${line}`);
    assert.ok(!/--username|--password/.test(line), line);
  }
}

describe(`charts from Helm repositories (real helm ${helm.version})`, { skip: helm.skip }, () => {
  let open: ChartRepo;
  let basic: ChartRepo;
  let mtls: ChartRepo;
  before(async () => {
    helm.require();
    open = await new ChartRepo(helm.path).start([fixtureChart('web')]);
    basic = await new ChartRepo(helm.path, {
      basicAuth: { username: USER, password: PASSWORD },
      prefix: '/private',
    }).start([fixtureChart('web')]);
    mtls = await new ChartRepo(helm.path, { tls: 'client-cert' }).start([fixtureChart('web')]);
  });
  after(async () => {
    await open?.close();
    await basic?.close();
    await mtls?.close();
  });

  it('a chart from an HTTP chart repository: helm pull as Argo CD, then helm template . in the chart', async () => {
    const { objects, calls } = await renderApp(`  source:
    repoURL: ${open.url}
    chart: web
    targetRevision: 0.1.0
    helm: {valueFiles: [values-prod.yaml], parameters: [{name: image, value: "nginx:1.29"}]}`);
    const cm = configMap(objects);
    assert.equal(cm.metadata.name, 'charted-settings');
    assert.equal(cm.data.replicas, '3');
    const commands = helmCalls(calls);
    assert.match(
      commands[0]!,
      new RegExp(`^pull --destination \\S+ --version 0\\.1\\.0 --repo ${open.url} web$`),
    );
    assert.match(
      commands[1]!,
      /^template \. --name-template charted --namespace web --set image=nginx:1\.29 --values \S+\/web\/values-prod\.yaml --include-crds$/,
    );
    assert.ok(open.requests.some((r) => r.path === '/index.yaml'));
  });

  it('Basic auth from a repository Secret: through a 0600 repositories.yaml, never argv; a wrong password fails scrubbed', async () => {
    const secret = (password: string) => [
      repoSecret('charts', 'repository', { url: basic.url, type: 'helm', username: USER, password }),
    ];
    const spec = `  source: {repoURL: "${basic.url}", chart: web, targetRevision: 0.1.0}`;
    const { objects, calls } = await renderApp(spec, secret(PASSWORD));
    assert.equal(configMap(objects).data.replicas, '1');
    const commands = helmCalls(calls);
    assert.deepEqual(commands[0], 'repo update repo');
    assert.match(commands[1]!, /^pull --destination \S+ --version 0\.1\.0 repo\/web$/);
    assert.equal(
      basic.requests.find((r) => r.path.endsWith('.tgz'))?.authorization,
      `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
    );
    assertNoCredentials(calls, PASSWORD);
    assert.equal(calls.find((c) => c.args[0] === 'repo')!.repositoriesMode, 0o600);
    assert.ok(basic.requests.some((r) => r.authorized && r.path.endsWith('.tgz')));
    await assert.rejects(renderApp(spec, secret('wrong-Pa55')), (err: Error) => {
      assert.match(
        err.message,
        new RegExp(
          `failed to render chart web from ${basic.url}: failed to read the index of ${basic.url}: .*401`,
        ),
      );
      assert.ok(!err.message.includes('wrong-Pa55'), err.message);
      return true;
    });
    // No Secret: helm is refused, and says so.
    await assert.rejects(renderApp(spec), /failed to pull web 0\.1\.0 from .*401/);
  });

  it('TLS client certificates from a repository Secret (tlsClientCertData/Key) reach helm as 0600 files', async () => {
    const { cert, key } = clientCertificate();
    const spec = `  source: {repoURL: "${mtls.url}", chart: web, targetRevision: 0.1.0}`;
    const secret = [
      repoSecret('mtls', 'repository', {
        url: mtls.url,
        type: 'helm',
        tlsClientCertData: cert,
        tlsClientCertKey: key,
        insecure: 'true',
      }),
    ];
    const { objects, calls } = await renderApp(spec, secret);
    assert.equal(configMap(objects).metadata.name, 'charted-settings');
    assertNoCredentials(calls, key.split('\n')[1]!);
    await assert.rejects(
      renderApp(spec, [repoSecret('mtls', 'repository', { url: mtls.url, type: 'helm', insecure: 'true' })]),
      /failed to pull web 0\.1\.0 from https:\/\/127\.0\.0\.1:\d+: helm pull failed: .*(certificate|tls|EOF|reset)/i,
    );
  });

  it('multi-source: the chart from a Helm repository, its value file from a Git ref source ($values)', async () => {
    const values = new TestRepo();
    values.commit({ 'envs/prod.yaml': 'replicas: 7\nmessage: from git\n' });
    try {
      const { objects } = await renderApp(`  sources:
    - repoURL: ${open.url}
      chart: web
      targetRevision: 0.1.0
      helm: {valueFiles: [$values/envs/prod.yaml]}
    - repoURL: ${values.url}
      targetRevision: main
      ref: values`);
      assert.deepEqual(
        [configMap(objects).data.replicas, configMap(objects).data.message],
        ['7', 'from git'],
      );
    } finally {
      values.remove();
    }
  });

  it('a dependency named @charts resolves through the repository Secret named "charts", then helm dependency build', async () => {
    const repo = new TestRepo();
    const dir = tempDir('umbrella-');
    cpSync(fixtureChart('umbrella'), dir, { recursive: true });
    repo.commit({
      'umbrella/Chart.yaml': readFileSync(join(dir, 'Chart.yaml'), 'utf8'),
      'umbrella/values.yaml': readFileSync(join(dir, 'values.yaml'), 'utf8'),
    });
    try {
      const secrets = [
        repoSecret('charts', 'repository', {
          url: basic.url,
          type: 'helm',
          name: 'charts',
          username: USER,
          password: PASSWORD,
        }),
      ];
      const { objects, calls } = await renderApp(
        `  source: {repoURL: "${repo.url}", path: umbrella, targetRevision: main}`,
        secrets,
      );
      const cm = configMap(objects);
      assert.deepEqual(
        [cm.metadata.name, cm.data.replicas, cm.data.message],
        ['charted-settings', '2', 'from the umbrella'],
      );
      const commands = helmCalls(calls);
      // Argo CD: template, (missing dependency) add repositories, dependency build, template again.
      assert.deepEqual(
        commands.map((c) => c.split(' ').slice(0, 2).join(' ')),
        ['template .', 'repo update', 'dependency build', 'template .'],
      );
      assertNoCredentials(calls, PASSWORD);
      // The checkout is never written: the build ran in a private copy.
      assert.ok(!repo.git('status', '--porcelain'));
    } finally {
      repo.remove();
    }
  });

  it('issue 34: a dependency repository that cannot be reached names its URL and the cause', async () => {
    const port = await closedPort();
    const repo = new TestRepo();
    const chart = (url: string) => ({
      'app/Chart.yaml': `apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: web\n    version: 0.1.0\n    repository: ${url}\n`,
    });
    try {
      const fails = async (url: string, message: RegExp) => {
        repo.commit(chart(url));
        await assert.rejects(
          renderApp(`  source: {repoURL: "${repo.url}", path: app, targetRevision: main}`),
          (err: Error) => {
            assert.match(err.message, message);
            assert.ok(!err.message.includes('helm-manager'), err.message);
            return true;
          },
        );
      };
      const at = `127\\.0\\.0\\.1:${port}/stable`;
      await fails(
        `https://127.0.0.1:${port}/stable`,
        new RegExp(
          `failed to render app from .*: failed to add helm repository https://${at}: .*connection refused`,
        ),
      );
      // An http:// dependency Argo CD leaves to helm: named from helm's own report.
      await fails(
        `http://127.0.0.1:${port}/stable`,
        new RegExp(`failed to reach helm repository http://${at}: .*connection refused`),
      );
    } finally {
      repo.remove();
    }
  });
});

describe(
  `charts from an OCI registry (real helm ${helm.version}, Debian docker-registry)`,
  { skip: helm.skip || registrySkip },
  () => {
    let open: OciRegistry;
    let secured: OciRegistry;
    before(async () => {
      helm.require();
      const archive = packageChart(helm.path, fixtureChart('web'), tempDir('oci-chart-'));
      open = await new OciRegistry(helm.path).start();
      open.push(archive, 'charts');
      secured = await new OciRegistry(helm.path, { username: USER, password: PASSWORD }).start();
      secured.push(archive, 'charts');
    });
    after(async () => {
      await open?.close();
      await secured?.close();
    });

    it('a Helm OCI chart (scheme-less repoURL, enableOCI): helm pull oci://... --plain-http (insecureOCIForceHttp)', async () => {
      const url = `${open.host}/charts`;
      const { objects, calls } = await renderApp(
        `  source: {repoURL: "${url}", chart: web, targetRevision: 0.1.0}`,
        [
          repoSecret('oci', 'repository', {
            url,
            type: 'helm',
            enableOCI: 'true',
            insecureOCIForceHttp: 'true',
          }),
        ],
      );
      assert.equal(configMap(objects).metadata.name, 'charted-settings');
      assert.match(
        helmCalls(calls)[0]!,
        new RegExp(`^pull oci://${url}/web --version 0\\.1\\.0 --destination \\S+ --plain-http$`),
      );
    });

    it('a private OCI registry: the Secret logs in through the private registry config, never argv', async () => {
      const url = `${secured.host}/charts`;
      const spec = `  source: {repoURL: "${url}", chart: web, targetRevision: 0.1.0}`;
      const secret = (password: string) => [
        repoSecret('oci', 'repository', {
          url,
          type: 'helm',
          enableOCI: 'true',
          insecureOCIForceHttp: 'true',
          username: USER,
          password,
        }),
      ];
      const { objects, calls } = await renderApp(spec, secret(PASSWORD));
      assert.equal(configMap(objects).data.replicas, '1');
      assertNoCredentials(calls, PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString('base64'));
      await assert.rejects(renderApp(spec, secret('wrong-Pa55')), (err: Error) => {
        assert.match(err.message, /failed to pull oci:\/\/.*: helm pull failed: .*(unauthorized|401)/i);
        assert.ok(!err.message.includes('wrong-Pa55'), err.message);
        return true;
      });
    });

    it('an oci:// source whose artifact is a chart: unpacked as the source root, path "."', async () => {
      const url = `oci://${open.host}/charts/web`;
      const { objects, rendered } = await renderApp(
        `  source: {repoURL: "${url}", path: ".", targetRevision: 0.1.0, helm: {valueFiles: [values-prod.yaml]}}`,
        [repoSecret('oci', 'repository', { url, type: 'oci', insecureOCIForceHttp: 'true' })],
      );
      assert.equal(configMap(objects).data.replicas, '3');
      assert.equal(rendered.sources[0]!.type, 'Helm');
      assert.equal(rendered.revision, '0.1.0');
    });
  },
);
