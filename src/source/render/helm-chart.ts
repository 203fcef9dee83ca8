/**
 * Charts that do not live in Git, fetched as Argo CD's repo-server fetches them (`util/helm/client.go
 * ExtractChart`, `util/helm/cmd.go Fetch`/`PullOCI`, `util/oci/client.go`), then unpacked; the chart
 * directory is rendered like a chart in Git (`helm template .` in it).
 * - Helm repository (`repoURL` http(s), `chart`, `targetRevision` = version):
 *   `helm pull --destination D --version V [--insecure-skip-tls-verify] --repo URL CHART [--pass-credentials]`;
 *   with credentials (a repository Secret), the repository is added to the render's private helm home and
 *   read by name: `helm repo update R`, then `helm pull --destination D --version V R/CHART ...`.
 * - Helm OCI (`repoURL` scheme-less `host/path`, or a Secret with `enableOCI`):
 *   `helm pull oci://REPO/CHART --version V --destination D [--cert-file F --key-file F]
 *   [--insecure-skip-tls-verify] [--plain-http]` (`insecureOCIForceHttp`), after the registry login the
 *   Secret gives (helm-home.ts).
 * - OCI source (`repoURL` `oci://host/path`, no `chart`): the artifact at tag `targetRevision`, which must be
 *   a Helm chart (Argo CD's OCI client also takes plain manifest tarballs; we do not yet: a clear error), is
 *   unpacked as the source root: `helm pull oci://host/path --version V --destination D [--plain-http]`.
 * A chart is pulled once per run (`tools.once`), by (repository, chart, version); nothing is written under
 * the user's home.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { hasHelmCredentials, HelmHome, isHelmOciRepo, registryHost, repoCause } from './helm-home.js';
import { RenderError, type RenderRequest, type RenderTools } from './types.js';

/** The unpacked chart directory (or OCI artifact root) of a source that is not in Git. */
export async function pullChart(req: RenderRequest, tools: RenderTools, helm: string): Promise<string> {
  const s = req.source;
  const where = s.chart ? `chart ${s.chart}` : s.repoURL;
  const settings = await req.helmRepository?.({ url: s.repoURL });
  const passCredentials = s.helm?.passCredentials ?? false;
  // Credentials are part of the key: two projects may reach one URL with different Secrets.
  const key = JSON.stringify([
    'chart',
    s.repoURL,
    s.chart ?? '',
    req.build.revision || s.targetRevision,
    settings ?? null,
    passCredentials,
  ]);
  return tools.once(key, async () => {
    const home = await HelmHome.create(tools);
    const run = {
      env: home.env,
      timeoutMs: tools.timeoutMs,
      ...(tools.signal ? { signal: tools.signal } : {}),
    };
    const dest = await tools.tempDir('helm-pull-');
    const version = req.build.revision || s.targetRevision;
    const exec = async (args: string[], what: string) => {
      try {
        await tools.exec(helm, args, run);
      } catch (err) {
        const cause = repoCause((err as Error).message, (err as { stdout?: string }).stdout ?? '');
        throw new RenderError(where, `failed to ${what}: ${home.scrub(cause)}`);
      }
    };
    // Argo CD's Fetch: `helm pull --destination D --version V [--insecure-skip-tls-verify] <chart...>`.
    const repoPull = (chart: string[]) => [
      'pull',
      '--destination',
      dest,
      '--version',
      version,
      ...(settings?.insecure ? ['--insecure-skip-tls-verify'] : []),
      ...chart,
      ...(passCredentials ? ['--pass-credentials'] : []),
    ];
    const pulling = `pull ${s.chart} ${version} from ${s.repoURL}`;
    const oci = s.repoURL.startsWith('oci://');
    if (oci || isHelmOciRepo(s.repoURL) || settings?.enableOCI) {
      const ref = oci ? s.repoURL : `oci://${s.repoURL.replace(/\/+$/, '')}/${s.chart}`;
      if (settings) await home.registryLogin(registryHost(s.repoURL), settings);
      await exec(
        [
          'pull',
          ref,
          '--version',
          version,
          '--destination',
          dest,
          ...(await home.certFiles(settings)),
          ...(settings?.insecure ? ['--insecure-skip-tls-verify'] : []),
          ...(settings?.insecureOCIForceHttp ? ['--plain-http'] : []),
        ],
        `pull ${ref}:${version}`,
      );
    } else if (settings && hasHelmCredentials(settings)) {
      await home.addRepository('repo', s.repoURL, settings, passCredentials);
      await exec(['repo', 'update', 'repo'], `read the index of ${s.repoURL}`);
      await exec(repoPull([`repo/${s.chart}`, ...(await home.certFiles(settings))]), pulling);
    } else {
      await exec(repoPull(['--repo', s.repoURL, s.chart!]), pulling);
    }
    return unpack(dest, where, tools);
  });
}

/** Unpacks the one archive `helm pull` left in `dest`; returns the chart's directory (the archive's top). */
async function unpack(dest: string, where: string, tools: RenderTools): Promise<string> {
  const archives = (await readdir(dest)).filter((f) => f.endsWith('.tgz') || f.endsWith('.tar.gz'));
  if (archives.length !== 1)
    throw new RenderError(where, `failed to unpack the chart: helm pull left ${archives.length} archives`);
  const out = await tools.tempDir('helm-chart-');
  try {
    await tools.exec('tar', ['-xzf', join(dest, archives[0]!), '-C', out, '--no-same-owner'], {
      timeoutMs: tools.timeoutMs,
    });
  } catch (err) {
    throw new RenderError(where, `failed to unpack the chart: ${(err as Error).message}`);
  }
  const tops = (await readdir(out, { withFileTypes: true })).filter((e) => e.isDirectory());
  if (tops.length !== 1)
    throw new RenderError(where, 'failed to unpack the chart: the archive holds no single chart directory');
  return join(out, tops[0]!.name);
}
