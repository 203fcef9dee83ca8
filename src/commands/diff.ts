import { Args, Flags } from '@oclif/core';
import { appFlags, selectApps, sourceSelection } from '../cli/app-flags.js';
import { BaseCommand } from '../cli/base-command.js';
import { ExitCode, GitopsError } from '../cli/errors.js';
import type { RunReport } from '../controller/index.js';
import type { IgnoreDifference } from '../diff/index.js';
import { hasDifferences } from '../output/diff.js';
import type { DiffFormat } from '../output/diff.js';
import { DIFF_FORMATS, renderDiffReport } from '../output/diff-format.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../output/diff-markdown.js';
import { createSourceService } from '../source/index.js';

export default class Diff extends BaseCommand {
  static override summary = 'Compare Applications in Git with the live cluster, as Argo CD refreshes them.';

  static override description = `Renders each selected Application, reads the live objects it manages (tracked by it, or at its targets'
keys) through one shared list+watch cache per cluster, and compares them as Argo CD does: normalization,
server defaults, three-way semantics, ignoreDifferences, Secret values masked. Prints, per app, the
destination, revision, sync and health, then a unified diff per changed resource (Git "+", live "-").

Exit codes (like kubectl diff): 0 no differences; 1 differences found; 2 an error (bad input, an app that
failed to render or compare; the other apps are still shown); 130 interrupted. --no-exit-code (or
--exit-code=false) turns differences into 0.`;

  static override examples = [
    '<%= config.bin %> diff -f apps/',
    '<%= config.bin %> diff -f apps/ web -o json',
    '<%= config.bin %> diff --from-cluster -l team=web --server-side-diff',
    '<%= config.bin %> diff -f apps/ --local . -o markdown > comment.md',
    '<%= config.bin %> diff --repo https://github.com/org/deploy --path envs/prod --dest-namespace prod -o name',
  ];

  static override strict = false;

  static override args = {
    app: Args.string({ description: 'Application names to compare (default: all selected).' }),
  };

  static override flags = {
    ...appFlags,
    kubeconfig: Flags.string({ description: 'Kubeconfig file. Default: KUBECONFIG, then ~/.kube/config.' }),
    context: Flags.string({
      description: 'Kube context for in-cluster destinations. Default: the current context.',
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
    'tracking-method': Flags.string({
      description: 'How resources name their app (argocd-cm application.resourceTrackingMethod).',
      options: ['annotation', 'label', 'annotation+label'],
      default: 'annotation',
    }),
    'instance-label-key': Flags.string({
      description: 'Label key of label tracking (argocd-cm application.instanceLabelKey).',
      default: 'app.kubernetes.io/instance',
    }),
    'ignore-differences-file': Flags.string({
      description:
        'Extra ignoreDifferences rules (YAML list, as spec.ignoreDifferences) for every app. Repeatable.',
      multiple: true,
    }),
    'server-side-diff': Flags.boolean({
      description: 'Compare against a server-side apply dry run of each live resource (one request each).',
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
    // The engine loads on demand: every other command's start-up stays free of it.
    const [{ Run }, { loadIgnoreDifferencesFile }] = await Promise.all([
      import('../controller/index.js'),
      import('../diff/index.js'),
    ]);
    const extraRules: IgnoreDifference[] = [];
    for (const file of flags['ignore-differences-file'] ?? [])
      extraRules.push(...(await loadIgnoreDifferencesFile(file)));
    const apps = await selectApps(flags, names as string[], 'diff');

    const source = createSourceService({ ...sourceSelection(flags), signal: this.signal });
    let report: RunReport;
    try {
      report = await new Run({
        apps,
        source,
        kubeconfig: flags.kubeconfig,
        context: flags.context,
        argocdNamespace: flags['argocd-namespace'],
        trackingMethod: flags['tracking-method'] as 'annotation' | 'label' | 'annotation+label',
        instanceLabelKey: flags['instance-label-key'],
        ignoreDifferences: extraRules,
        serverSideDiff: flags['server-side-diff'],
        statusProcessors: flags['status-processors'],
        signal: this.signal,
        onWarning: (m) => this.warnLine(m),
      }).run();
    } finally {
      await source.close();
    }
    const noColor = flags['no-color'] || Boolean(process.env['NO_COLOR']);
    const text = renderDiffReport(report, flags.output as DiffFormat, {
      color: Boolean(process.stdout.isTTY) && !noColor,
      maxBytes: flags['max-output-bytes'],
    });
    if (text) this.write(text);

    const errors = report.apps.flatMap((a) => (a.error ? [a.error] : []));
    if (errors.length > 0) {
      for (const e of errors.slice(0, -1)) process.stderr.write(`error: ${e.message}\n`);
      const last = errors.at(-1)!;
      const code = report.interrupted ? ExitCode.INTERRUPTED : Math.max(ExitCode.USAGE, last.exitCode);
      throw new GitopsError(last.message, { exitCode: code, ...(last.hint ? { hint: last.hint } : {}) });
    }
    if (flags['exit-code'] && hasDifferences(report)) process.exitCode = ExitCode.FAILURE;
  }
}
