/**
 * `npm run conformance` (no verb): runs the corpus (conformance/cases) against Argo CD on the rig and
 * prints the comparison table; without the rig, our side alone on the embedded API server.
 *
 *   node --import tsx conformance/compare/run.ts [--case ID|NAME|FAMILY ...] [--embedded] [--batch-size N]
 *                                               [--out FILE] [--all] [--markdown FILE]
 *
 * Prints, per case, every field that differs (case, field, Argo CD, ours) and the case's totals, then
 * the totals of the run; `--all` prints identical fields too. Writes every row to the results file
 * (default conformance/.work/results.json). Exit 0 when every compared field is identical, 1 when some
 * differ, 2 when the run itself failed.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundledToolPath } from '../../src/source/render/tool-versions.js';
import { Batch, type CaseOutcome } from './batch.js';
import { loadCases, type Case } from './case.js';
import { CLI, ROOT, openEnv, type Env } from './env.js';
import { run } from './kubectl.js';
import { totals } from './normalise.js';
import { runAppSets } from './appsets.js';
import { runOperations } from './operations.js';
import { runShards } from './shards.js';
import { formatMarkdown, formatTable, summary } from './table.js';

interface Args {
  cases: string[];
  embedded: boolean;
  batchSize: number;
  out: string;
  all: boolean;
  markdown?: string;
}

function parseArgs(argv: string[]): Args {
  const a: Args = {
    cases: [],
    embedded: false,
    batchSize: 40,
    out: join(ROOT, 'conformance', '.work', 'results.json'),
    all: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`conformance: failed to read arguments: ${x} needs a value`);
      return v;
    };
    if (x === '--case') a.cases.push(next());
    else if (x === '--embedded') a.embedded = true;
    else if (x === '--batch-size') a.batchSize = Number(next());
    else if (x === '--out') a.out = next();
    else if (x === '--all') a.all = true;
    else if (x === '--markdown') a.markdown = next();
    else throw new Error(`conformance: failed to read arguments: unknown argument ${x}`);
  }
  if (!Number.isInteger(a.batchSize) || a.batchSize < 1)
    throw new Error('conformance: failed to read arguments: --batch-size must be a positive integer');
  return a;
}

/**
 * Whether a case's binary is there: on PATH, or for helm and kustomize the one `npm run tools` installs,
 * which our CLI falls back to and the rig's repo-server runs (conformance/rig/up.ts).
 */
async function available(tool: string): Promise<boolean> {
  if ((tool === 'helm' || tool === 'kustomize') && existsSync(bundledToolPath(tool))) return true;
  const r = await run('sh', ['-c', `command -v ${tool}`]);
  return r.code === 0;
}

export function selectCases(all: Case[], filters: string[]): Case[] {
  if (filters.length === 0) return all;
  return all.filter((c) => filters.some((f) => c.id === f || c.name.includes(f) || c.family === f));
}

async function runAll(
  env: Env,
  cases: Case[],
  batchSize: number,
  log: (s: string) => void,
  progress: (done: CaseOutcome[]) => void = () => {},
): Promise<CaseOutcome[]> {
  const outcomes: CaseOutcome[] = [];
  const runnable: Case[] = [];
  for (const c of cases) {
    const missing: string[] = [];
    for (const n of c.needs) if (!(await available(n))) missing.push(n);
    if (missing.length) {
      outcomes.push({
        id: c.id,
        name: c.name,
        family: c.family,
        phases: c.phases,
        rows: [],
        notRun: [`case: needs ${missing.join(', ')} (not on PATH, nor installed by npm run tools)`],
        notes: [],
      });
    } else runnable.push(c);
  }
  const baseCm = (await env.kubectl.getJson(['configmap', 'argocd-cm', '-n', env.argocdNs]))?.data ?? {};
  const groups = new Map<string, Case[]>();
  for (const c of runnable.filter((x) => x.app && !x.operations)) {
    const k = JSON.stringify(c.argocdCm);
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  let n = 0;
  for (const [cmKey, group] of groups) {
    const cmData = { ...baseCm, ...(JSON.parse(cmKey) as Record<string, string>) };
    await env.kubectl.run([
      'patch',
      'configmap',
      'argocd-cm',
      '-n',
      env.argocdNs,
      '--type=merge',
      '-p',
      JSON.stringify({ data: cmData }),
    ]);
    for (let i = 0; i < group.length; i += batchSize) {
      const cases = group.slice(i, i + batchSize);
      const b = new Batch(env, cases, `batch-${++n}`);
      const t0 = Date.now();
      const step = async (name: string, f: () => Promise<unknown>) => {
        const s = Date.now();
        await f();
        log(`batch ${n} (${cases.length} cases): ${name} ${((Date.now() - s) / 1000).toFixed(1)} s`);
      };
      await step('set-up', () => b.setup());
      let argoApps = new Map();
      await step('apps created', async () => (argoApps = await b.createApps()));
      await step('refresh', () => b.refresh(argoApps));
      await step('sync', () => b.sync());
      await step('controller', () => b.controller());
      await step('cleanup', () => b.cleanup());
      log(`batch ${n}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      outcomes.push(...b.outcomes.values());
      progress(outcomes);
    }
    // Settings of this group removed again: keys it added go back to the rig's.
    const restore: Record<string, string | null> = { ...baseCm };
    for (const k of Object.keys(JSON.parse(cmKey) as object)) if (!(k in baseCm)) restore[k] = null;
    await env.kubectl.run([
      'patch',
      'configmap',
      'argocd-cm',
      '-n',
      env.argocdNs,
      '--type=merge',
      '-p',
      JSON.stringify({ data: restore }),
    ]);
  }
  for (const c of runnable.filter((x) => x.shards)) outcomes.push(await runShards(env, c));
  const appsets = runnable.filter((x) => x.appset);
  if (appsets.length > 0) {
    const s = Date.now();
    outcomes.push(...(await runAppSets(env, appsets)));
    log(`appsets (${appsets.length} cases): ${((Date.now() - s) / 1000).toFixed(1)} s`);
  }
  const operations = runnable.filter((x) => x.operations);
  if (operations.length > 0) {
    const s = Date.now();
    outcomes.push(...(await runOperations(env, operations)));
    log(`operations (${operations.length} cases): ${((Date.now() - s) / 1000).toFixed(1)} s`);
  }
  return outcomes.sort((a, b) => a.id.localeCompare(b.id));
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) {
    console.error('conformance: failed to start: no build of the CLI (run npm run build first)');
    return 2;
  }
  const all = loadCases(join(ROOT, 'conformance', 'cases'));
  const cases = selectCases(all, args.cases);
  if (cases.length === 0) {
    console.error(`conformance: failed to select cases: none matches ${args.cases.join(', ')}`);
    return 2;
  }
  const t0 = Date.now();
  const env = await openEnv({ embedded: args.embedded });
  const log = (s: string) => process.stderr.write(`${s}\n`);
  log(
    env.mode === 'rig'
      ? `conformance: ${cases.length} cases against Argo CD ${env.versions.argocd ?? '?'} on Kubernetes ${env.versions.kubernetes ?? '?'}`
      : `conformance: ${cases.length} cases, our side only (no rig: conformance/.work/rig.json is absent; npm run conformance -- up starts it)`,
  );
  let outcomes: CaseOutcome[];
  try {
    // The results file is written after each batch too (`partial: true`), so a run cut short keeps them.
    outcomes = await runAll(env, cases, args.batchSize, log, (done) => {
      mkdirSync(dirname(args.out), { recursive: true });
      writeFileSync(
        args.out,
        JSON.stringify({ partial: true, mode: env.mode, versions: env.versions, cases: done }) + '\n',
      );
    });
  } finally {
    await env.close();
  }
  const wallSeconds = Math.round((Date.now() - t0) / 1000);
  const ours = await run(CLI, ['version', '-o', 'json']);
  const result = {
    date: new Date().toISOString(),
    mode: env.mode,
    versions: { ...env.versions, kubectlGitops: safeJson(ours.stdout)?.version ?? 'unknown' },
    wallSeconds,
    totals: summary(outcomes, env.mode === 'rig'),
    cases: outcomes,
  };
  process.stdout.write(formatTable(outcomes, { all: args.all, compared: env.mode === 'rig' }));
  process.stdout.write(
    `\n${JSON.stringify(result.totals)}\nwall time ${wallSeconds} s; results: ${args.out}\n`,
  );
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, JSON.stringify(result, null, 1) + '\n');
  if (args.markdown) writeFileSync(args.markdown, formatMarkdown(outcomes, result));
  const t = totals(outcomes.flatMap((o) => o.rows));
  return env.mode === 'rig' && t.different > 0 ? 1 : 0;
}

function safeJson(s: string): { version?: string } | undefined {
  try {
    return JSON.parse(s) as { version?: string };
  } catch {
    return undefined;
  }
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    console.error(
      e.message.startsWith('conformance') || e.message.includes('failed to')
        ? e.message
        : `conformance: failed: ${e.message}`,
    );
    process.exit(2);
  },
);
