import { Args, Flags } from '@oclif/core';
import { mkdir, writeFile } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { instanceName } from '../apps/index.js';
import { stringify } from 'yaml';
import { appFlags, progressFlags, requestTimeoutFlag, sourceSelection, useParseCache } from './flags.js';
import { selectAppTree, treeFlags } from './tree-flags.js';
import { BaseCommand } from './base-command.js';
import { GitopsError, oneLine } from '../common/index.js';
import { renderAppFile, renderApps, type RenderFormat } from '../output/render.js';
import {
  createSourceService,
  observeRenders,
  OfflineScope,
  placeInDestination,
  type RenderedApp,
} from '../source/index.js';
import type { AppTree } from '../preview/index.js';
import { prose } from './prose.js';

export default class Render extends BaseCommand {
  static override summary = 'Print the desired state of Applications: rendered manifests, no cluster needed.';

  static override description = prose`Resolves each selected Application's sources (Git branch, tag or SHA), renders them as Argo CD's
repo-server would (plain directories, Kustomize, Helm, Jsonnet), drops duplicates (the last one wins, with a
warning) and stamps the tracking annotation argocd.argoproj.io/tracking-id. Objects are placed as Argo CD
applies them: namespaced kinds without a namespace get the app's destination namespace, cluster-scoped kinds
none, so "render ... | kubectl apply -f -" lands where sync would (no cluster is asked: built-in kinds' scopes,
the CustomResourceDefinitions rendered alongside, and any other kind counts as namespaced, as in Argo CD). Rendered manifests are cached per
(repository, commit, path, options, tool version) under $XDG_CACHE_HOME/kubectl-gitops (or ~/.cache).

ApplicationSets among the -f files are expanded locally into Applications (generators list, clusters, git,
matrix, merge); Applications and ApplicationSets an app renders are rendered too (app-of-apps), down to
--max-depth levels; --no-recursive turns that off. --appsets-only prints the generated Applications instead.

Exit codes: 0 all apps rendered; 2 bad input or an app failed to render (the error names app, file and reason).`;

  static override usage = [
    'render [APP...] -f FILE... [FLAGS]',
    'render [APP...] --from-cluster [FLAGS]',
    'render --repo URL --path DIR [--revision REV] [--dest-namespace NS] [FLAGS]',
  ];

  static override examples = [
    { description: 'Render every Application in a folder.', command: '<%= config.bin %> render -f apps/' },
    { description: 'Render one app as JSON.', command: '<%= config.bin %> render -f apps/ web -o json' },
    {
      description: 'Render an ad-hoc app from a repository path, with no Application file.',
      command:
        '<%= config.bin %> render --repo https://github.com/org/deploy --path envs/prod --revision main --dest-namespace prod',
    },
    {
      description: 'Render from the working tree into one file per app.',
      command: '<%= config.bin %> render -f apps/ --local . --output-dir out/',
    },
    {
      description: "Render the live Argo CD's Applications of one team.",
      command: '<%= config.bin %> render --from-cluster -l team=web',
    },
    {
      description: 'Print the Applications that ApplicationSets generate.',
      command: '<%= config.bin %> render -f appsets/ --appsets-only --clusters-file clusters.yaml',
    },
  ];

  static override strict = false;

  static override args = {
    app: Args.string({
      description: 'Application names to render (default: all selected).',
      // oclif reads standard input into a missing argument; stdin is -f -'s, never an app name.
      ignoreStdin: true,
    }),
  };

  static override flags = {
    ...appFlags,
    ...treeFlags,
    ...progressFlags,
    'appsets-only': Flags.boolean({
      description: 'Print the Applications the ApplicationSets generate (no rendering of their sources).',
    }),
    kubeconfig: Flags.string({
      description: 'Kubeconfig file (--from-cluster). Default: KUBECONFIG, then ~/.kube/config.',
    }),
    context: Flags.string({ description: 'Kube context (--from-cluster). Default: the current context.' }),
    ...requestTimeoutFlag,
    output: Flags.string({
      char: 'o',
      description: 'Output format.',
      options: ['yaml', 'json'],
      default: 'yaml',
    }),
    'output-dir': Flags.string({
      description: 'Write one file per app (<app>.yaml or .json) into this directory.',
    }),
  };

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(Render);
    const format = flags.output as RenderFormat;
    const appsetsOnly = flags['appsets-only'];
    useParseCache();
    const service = createSourceService({
      ...sourceSelection(flags, (m) => this.warnLine(m)),
      signal: this.signal,
    });
    let tree: AppTree;
    // Progress of the renders (a TTY display on stderr; stdout is the manifests alone).
    const progress = await this.startProgress('render', {
      machineOutput: format === 'json' || appsetsOnly,
      quiet: flags.quiet,
    });
    try {
      tree = await selectAppTree(flags, argv as string[], 'render', {
        service: observeRenders(service, progress.onEvent),
        recursive: !appsetsOnly && (flags.recursive ?? true),
        renderAll: !appsetsOnly,
        liveClusters: true,
        onWarning: (m) => this.warnLine(m),
      });
    } finally {
      await this.stopProgress();
      await service.close();
    }
    if (appsetsOnly) {
      const docs = tree.generated;
      this.write(
        format === 'json'
          ? `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: docs }, null, 2)}\n`
          : docs.map((d) => `---\n${stringify(d)}`).join(''),
      );
      return;
    }
    const results = tree.nodes.map((n): PromiseSettledResult<RenderedApp> =>
      n.error || !n.rendered
        ? { status: 'rejected', reason: n.error }
        : { status: 'fulfilled', value: n.rendered },
    );
    // As Argo CD applies them, so that `render | kubectl apply -f -` lands where sync would.
    const scope = new OfflineScope(results.flatMap((r) => (r.status === 'fulfilled' ? r.value.objects : [])));
    const rendered = results.flatMap((r) =>
      r.status === 'fulfilled'
        ? [
            {
              ...r.value,
              objects: placeInDestination(r.value.objects, r.value.app.destination.namespace, scope),
            },
          ]
        : [],
    );
    for (const r of rendered) for (const w of r.warnings) this.warnLine(w);

    if (flags['output-dir']) {
      const dir = resolve(flags['output-dir']);
      await mkdir(dir, { recursive: true }).catch((err: unknown) => {
        throw new GitopsError(`failed to create the output folder: ${oneLine(err)}`, {
          subject: dir,
          exitCode: 2,
        });
      });
      for (const r of rendered) {
        const file = resolve(dir, `${instanceName(r.app, flags['argocd-namespace'])}.${format}`);
        // Names were validated as the API server validates them (apps/parse.ts); this check is the last
        // guard that no file is ever written outside the folder the user named.
        const rel = relative(dir, file);
        if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || rel.includes(sep)) {
          throw new GitopsError(`failed to write: the file name would leave the output folder ${dir}`, {
            subject: `app ${r.app.name}`,
            exitCode: 2,
          });
        }
        await writeFile(file, renderAppFile(r, format)).catch((err: unknown) => {
          throw new GitopsError(`failed to write: ${oneLine(err)}`, { subject: file, exitCode: 2 });
        });
      }
    } else if (format === 'json' || tree.nodes.length > 0) {
      // Every app in tree order; one that failed is listed in its place with its error (app-of-apps).
      const placed = new Map(rendered.map((r) => [r.app.name + '\0' + (r.app.namespace ?? ''), r]));
      this.write(
        renderApps(
          tree.nodes.map(
            (n) =>
              (!n.error && placed.get(n.app.name + '\0' + (n.app.namespace ?? ''))) || {
                name: n.app.name,
                error: oneLine(n.error ?? 'not rendered'),
              },
          ),
          format,
        ),
      );
    }

    this.conclude({
      command: 'render',
      errors: results.flatMap((r) =>
        r.status === 'rejected' ? [r.reason instanceof Error ? r.reason : new Error(String(r.reason))] : [],
      ),
    });
  }
}
