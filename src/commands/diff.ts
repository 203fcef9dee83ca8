import { Args, Flags } from '@oclif/core';
import {
  appFlags,
  checkPluginConfigs,
  clientOptionsOf,
  clusterSecretsOf,
  sourceSelection,
  clusterFlags,
  progressFlags,
  serverSideDiffFlags,
  serverSideDiffLimits,
  runProjects,
  runSettings,
  useParseCache,
  comparisonMemoOf,
} from './flags.js';
import { selectAppTree, treeFlags } from './tree-flags.js';
import { BaseCommand } from './base-command.js';
import { UsageError } from '../common/index.js';
import type { SourcedObject } from '../util/yaml-docs.js';
import type { RunReport } from '../controller/index.js';
import { withTreeErrors, type TreeNode } from '../preview/index.js';
import type { IgnoreDifference } from '../diff/index.js';
import { hasDifferences } from '../output/diff.js';
import type { DiffFormat } from '../output/diff.js';
import { DIFF_FORMATS, diffReportChunks } from '../output/diff-format.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../output/diff-markdown.js';
import { useColor } from '../output/color.js';
import { createSourceService, type SourceServiceOptions } from '../source/index.js';
import { previewHasDifferences, renderPreview } from '../output/preview.js';
import { prose } from './prose.js';

export default class Diff extends BaseCommand {
  static override summary = 'Compare Applications in Git with the live cluster, as Argo CD refreshes them.';

  static override description = prose`Renders each selected Application, reads the live objects it manages (tracked by it, or at its targets'
keys) through one shared list+watch cache per cluster, and compares them as Argo CD does: normalization,
server defaults, three-way semantics, ignoreDifferences, Secret values masked. Prints, per app, the
destination, revision, sync and health, then a unified diff per changed resource (Git "+", live "-").

Exit codes (like kubectl diff): 0 no differences; 1 differences found; 2 any error (bad input, an unreachable
API server, an app that failed to render or compare; the other apps are still shown); 130 interrupted. --no-exit-code (or
--exit-code=false) turns differences into 0.

With --base REF no cluster is read: every app is rendered at REF and at the head (--head, default HEAD, or
the working tree with --local DIR) and the two are compared (base "-", head "+"). Sources move when their
repoURL is the working copy's origin (or --repo-url); Application and ApplicationSet files of that repository
are read at both revisions, so apps the change adds or removes show as added or removed. Same exit codes.`;

  static override usage = [
    'diff [APP...] -f FILE... [FLAGS]',
    'diff [APP...] --from-cluster [FLAGS]',
    'diff --repo URL --path DIR [--revision REV] [--dest-namespace NS] [FLAGS]',
    'diff [APP...] -f FILE... --base REF [--head REF | --local DIR] [FLAGS]',
  ];

  static override examples = [
    {
      description: 'Compare every Application in a folder with the cluster.',
      command: '<%= config.bin %> diff -f apps/',
    },
    { description: 'One app, as JSON.', command: '<%= config.bin %> diff -f apps/ web -o json' },
    {
      description: "The live Argo CD's Applications of one team, with server-side diff.",
      command: '<%= config.bin %> diff --from-cluster -l team=web --server-side-diff',
    },
    {
      description: 'The working tree against the cluster, as a pull-request comment.',
      command: '<%= config.bin %> diff -f apps/ --local . -o markdown > comment.md',
    },
    {
      description: 'An ad-hoc app from a repository path; names of changed resources only.',
      command:
        '<%= config.bin %> diff --repo https://github.com/org/deploy --path envs/prod --dest-namespace prod -o name',
    },
    {
      description: 'Preview a pull request with no cluster: origin/main against HEAD.',
      command: '<%= config.bin %> diff -f apps/ --base origin/main -o markdown > comment.md',
    },
    {
      description: 'Preview uncommitted changes against main.',
      command: '<%= config.bin %> diff -f apps/ --base main --local .',
    },
  ];

  static override strict = false;

  static override args = {
    app: Args.string({
      description: 'Application names to compare (default: all selected).',
      // oclif reads standard input into a missing argument; stdin is -f -'s, never an app name.
      ignoreStdin: true,
    }),
  };

  static override flags = {
    ...appFlags,
    ...clusterFlags,
    ...treeFlags,
    ...progressFlags,
    ...serverSideDiffFlags,
    base: Flags.string({
      description:
        'Preview a change with no cluster: compare every app rendered at this revision with the head.',
      helpGroup: 'PREVIEW',
    }),
    head: Flags.string({
      description: 'With --base: the revision compared (default HEAD; --local compares the working tree).',
      dependsOn: ['base'],
      exclusive: ['local'],
      helpGroup: 'PREVIEW',
    }),
    'repo-url': Flags.string({
      description: "With --base: the repoURL whose sources move (default: the working copy's origin remote).",
      dependsOn: ['base'],
      helpGroup: 'PREVIEW',
    }),
    output: Flags.string({
      char: 'o',
      description: 'Output format.',
      options: [...DIFF_FORMATS],
      default: 'diff',
    }),
    'exit-code': Flags.boolean({
      description: 'Exit 1 when differences are found (off: 0 unless an error).',
      default: true,
      allowNo: true,
    }),
    'ignore-differences-file': Flags.string({
      description:
        'Extra ignoreDifferences rules (YAML list, as spec.ignoreDifferences) for every app. Repeatable.',
      multiple: true,
    }),
    'server-side-diff': Flags.boolean({
      description:
        'Compare against a server-side apply dry run of each live resource (one request each). Alias: --server-side (kubectl diff).',
      aliases: ['server-side'],
    }),
    'status-processors': Flags.integer({
      description: 'Apps compared in parallel (refresh queue workers).',
      default: 4,
      min: 1,
      max: 100,
    }),
    'max-output-bytes': Flags.integer({
      description: 'Cap of -o markdown output (diffs are cut, the summary kept).',
      default: DEFAULT_MAX_OUTPUT_BYTES,
      min: 1024,
    }),
  };

  async run(): Promise<void> {
    const argv = this.argv.map((a) =>
      a === '--exit-code=false' ? '--no-exit-code' : a === '--exit-code=true' ? '--exit-code' : a,
    );
    const { flags, argv: names } = await this.parse(Diff, argv);
    // Server-side diff's batches (a bad value fails before anything is read).
    const ssdLimits = serverSideDiffLimits(flags);
    // The engine loads on demand: every other command's start-up stays free of it.
    const [{ Run, prepareRun }, { loadIgnoreDifferencesFile }] = await Promise.all([
      import('../controller/index.js'),
      import('../diff/index.js'),
    ]);
    const extraRules: IgnoreDifference[] = [];
    for (const file of flags['ignore-differences-file'] ?? [])
      extraRules.push(...(await loadIgnoreDifferencesFile(file)));
    const color = useColor(flags['no-color']);
    if (flags.base !== undefined) {
      if (flags['argocd-cm'] !== undefined)
        this.warnLine('--argocd-cm is not read with --base: no cluster is compared, Argo CD defaults apply');
      if (flags['from-cluster'] || flags.repo)
        throw new UsageError(
          'failed to preview: --base reads Applications from -f files only (no cluster, no ad-hoc app)',
          {
            subject: '--base',
          },
        );
      if (flags.revision !== undefined)
        throw new UsageError(
          'failed to preview: --base compares --base with --head; use --head for the revision',
          {
            subject: '--revision',
          },
        );
      if ((flags['app-file'] ?? []).length === 0)
        throw new UsageError('failed to preview: give the Application files with -f', { subject: '--base' });
      await checkPluginConfigs(flags);
      const { runBasePreview, clusterSource } = await import('../preview/index.js');
      useParseCache();
      const preview = await runBasePreview({
        files: flags['app-file'] ?? [],
        names: names as string[],
        ...(flags.selector !== undefined ? { selector: flags.selector } : {}),
        base: flags.base,
        ...(flags.head ? { head: flags.head } : {}),
        ...(flags.local ? { local: flags.local } : {}),
        ...(flags['repo-url'] ? { repoURL: flags['repo-url'] } : {}),
        argocdNamespace: flags['argocd-namespace'],
        recursive: flags.recursive ?? true,
        maxDepth: flags['max-depth'],
        clusters: clusterSource({
          clustersFiles: flags['clusters-file'] ?? [],
          onWarning: (m) => this.warnLine(m),
        }),
        ignoreDifferences: extraRules,
        source: {
          hardRefresh: flags['hard-refresh'],
          signal: this.signal,
          // Private repositories of the apps' sources (--repositories-file): docs/repositories.md; and
          // config management plugins (--plugin-config): docs/plugins.md.
          ...repositoriesOf(sourceSelection(flags, (m) => this.warnLine(m))),
        },
        onWarning: (m) => this.warnLine(m),
      });
      const text = renderPreview(preview, flags.output as DiffFormat, {
        color,
        maxBytes: flags['max-output-bytes'],
      });
      if (text) this.write(text);
      this.conclude({
        command: 'diff',
        errors: preview.apps.flatMap((a) => (a.error ? [a.error] : [])),
        differences: flags['exit-code'] && previewHasDifferences(preview),
      });
      return;
    }

    // A bad --argocd-cm file fails before anything is rendered; the live one is read after the apps.
    const fileSettings =
      flags['argocd-cm'] !== undefined ? await runSettings(flags, (m) => this.warnLine(m)) : undefined;
    useParseCache();
    const source = createSourceService({
      ...sourceSelection(flags, (m) => this.warnLine(m)),
      signal: this.signal,
    });
    // The kubeconfig, a connection and discovery start now, while the Application files load (issue 23).
    const prepared = prepareRun({
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      ...clientOptionsOf(flags),
    });
    let ran = false;
    let report: RunReport;
    let nodes: TreeNode[] = [];
    try {
      // AppProjects of the -f files come from the same pass that reads their Applications.
      const projectDocs: SourcedObject[] = [];
      const tree = await selectAppTree(flags, names as string[], 'diff', {
        service: source,
        recursive: flags.recursive ?? false,
        renderAll: false,
        liveClusters: true,
        onWarning: (m) => this.warnLine(m),
        projectDocs,
      });
      nodes = tree.nodes;
      const apps = tree.nodes.filter((n) => !n.error).map((n) => n.app);
      const settings = fileSettings ?? (await runSettings(flags, (m) => this.warnLine(m)));
      const projects = await runProjects(flags, projectDocs);
      const progress = await this.startProgress('diff', {
        machineOutput: flags.output !== 'diff',
        quiet: flags.quiet,
      });
      ran = true;
      report = await new Run({
        ...comparisonMemoOf(flags),
        prepared,
        apps,
        source,
        kubeconfig: flags.kubeconfig,
        context: flags.context,
        clusterSecrets: await clusterSecretsOf(flags, (m) => this.warnLine(m)),
        argocdNamespace: flags['argocd-namespace'],
        ...settings,
        projects,
        ignoreDifferences: extraRules,
        serverSideDiff: flags['server-side-diff'],
        // `-o name` prints names alone: no unified diff text is built for it (a YAML print of both sides
        // of every differing resource).
        diffText: flags.output !== 'name',
        ...ssdLimits,
        statusProcessors: flags['status-processors'],
        ...clientOptionsOf(flags),
        signal: this.signal,
        onWarning: (m) => this.warnLine(m),
        onEvent: progress.onEvent,
      }).run();
    } finally {
      if (!ran) (await prepared.connection)?.close();
      await this.stopProgress();
      await source.close();
    }
    // An app of the tree that failed to load or render (an app-of-apps child) is listed in its place.
    report = { ...report, apps: withTreeErrors(nodes, report.apps) };
    // -o json is written app by app (issue 23): a big run's document is never one string.
    for (const text of diffReportChunks(report, flags.output as DiffFormat, {
      color,
      maxBytes: flags['max-output-bytes'],
    }))
      if (text) this.write(text);

    this.conclude({
      command: 'diff',
      errors: report.apps.flatMap((a) => (a.error ? [a.error] : [])),
      interrupted: report.interrupted,
      differences: flags['exit-code'] && hasDifferences(report),
    });
  }
}

/** What `diff --base` takes of the source options: credentials, plugins and the renderer binaries (no argocd-cm). */
function repositoriesOf(
  options: SourceServiceOptions,
): Pick<SourceServiceOptions, 'repositories' | 'plugins' | 'helmPath' | 'kustomizePath'> {
  return {
    ...(options.repositories ? { repositories: options.repositories } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
    ...(options.helmPath ? { helmPath: options.helmPath } : {}),
    ...(options.kustomizePath ? { kustomizePath: options.kustomizePath } : {}),
  };
}
