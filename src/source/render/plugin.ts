/**
 * Config management plugin sources (rules in docs/plugins.md), run as Argo CD's cmp-server runs them
 * (cmpserver/plugin/plugin.go `generateManifest`, `runCommand`; reposerver/repository/repository.go
 * `runConfigManagementPluginSidecars`):
 * - which sources: `spec.source.plugin` set (`plugin: {}` too), or no explicit type (no helm, kustomize,
 *   directory) and a plugin's discovery matches, tried before kustomize/Helm detection as Argo CD's
 *   `discovery.AppType` does; discovery errors of such implicit sources are ignored (Argo CD then falls
 *   back to the other types), those of a `plugin` source are part of its error;
 * - the repository is copied to a fresh directory (without `.git`; files mode 0644 and directories 0755
 *   unless `preserveFileMode`, as the cmp-server unpacks its tarball); `init` then `generate` run in the
 *   source directory of that copy with the process environment plus plugin-env.ts's entries, each in its
 *   own process group (killed whole on timeout), `ARGOCD_EXEC_TIMEOUT` (a Go duration) or else the render
 *   timeout (90 s) each;
 * - stdout of `generate` is a YAML or JSON stream of objects (objects.ts: empty documents skipped, Lists
 *   flattened, anything else an error), as `kube.SplitYAML` reads it;
 * - errors name the plugin and the step; stderr is trimmed, and the values of `ARGOCD_ENV_*` entries and
 *   of process variables whose names look secret (TOKEN, SECRET, PASSWORD, KEY, CREDENTIAL, AUTH) are
 *   replaced by "***" in every message.
 */
import { chmod, cp, readdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import type { PluginConfig, PluginConfigSet, PluginCommand } from '../../apps/index.js';
import { parseGoDuration } from '../../apps/index.js';
import { ExecError, trimStderr } from '../exec.js';
import { scrub } from '../git-auth.js';
import { ObjectsError, parseObjects } from './objects.js';
import { detectPlugin, discoveryOrder } from './plugin-discover.js';
import { buildEnv } from './env.js';
import { pluginEnv } from './plugin-env.js';
import { RenderError, type RenderRequest, type RenderResult, type RenderTools } from './types.js';

const SECRET_NAME = /TOKEN|SECRET|PASSW|KEY|CREDENTIAL|AUTH/i;

/** The timeout of one plugin command: ARGOCD_EXEC_TIMEOUT when set (a Go duration), else `fallback`. */
export function pluginTimeoutMs(
  fallback: number,
  env: Record<string, string | undefined> = process.env,
): number {
  const text = env['ARGOCD_EXEC_TIMEOUT'];
  if (!text) return fallback;
  try {
    const ns = parseGoDuration(text);
    return ns > 0n ? Number(ns / 1_000_000n) : fallback;
  } catch {
    return fallback; // Argo CD logs the bad value and keeps its default
  }
}

/** Values that never reach a message: plugin env values and secret-looking process variables. */
function secretsOf(env: readonly [string, string][]): string[] {
  const out = env.filter(([k]) => k.startsWith('ARGOCD_ENV_')).map(([, v]) => v);
  for (const [k, v] of Object.entries(process.env)) if (v && SECRET_NAME.test(k)) out.push(v);
  return out.sort((a, b) => b.length - a.length);
}

/** A copy of the repository to run a plugin in; returns the source directory inside it. */
async function workCopy(req: RenderRequest, dir: string, tools: RenderTools, keepModes: boolean) {
  const copy = await tools.tempDir('cmp-');
  await cp(req.root, copy, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => basename(src) !== '.git',
  });
  if (!keepModes) {
    const reset = async (d: string): Promise<void> => {
      await chmod(d, 0o755);
      for (const e of await readdir(d, { withFileTypes: true })) {
        if (e.isDirectory()) await reset(join(d, e.name));
        else if (e.isFile()) await chmod(join(d, e.name), 0o644);
      }
    };
    await reset(copy);
  }
  return join(copy, relative(req.root, dir));
}

interface Run {
  plugin: PluginConfig;
  step: string;
  command: PluginCommand;
  cwd: string;
  env: [string, string][];
}

async function runCommand(r: Run, tools: RenderTools, where: string): Promise<string> {
  const [cmd, ...first] = r.command.command;
  const secrets = secretsOf(r.env);
  try {
    const { stdout } = await tools.exec(cmd!, [...first, ...r.command.args], {
      cwd: r.cwd,
      env: Object.fromEntries(r.env),
      timeoutMs: pluginTimeoutMs(tools.timeoutMs),
      processGroup: true,
      ...(tools.signal ? { signal: tools.signal } : {}),
    });
    return stdout.endsWith('\n') ? stdout.slice(0, -1) : stdout;
  } catch (err) {
    const e = err as Error;
    const what = `plugin "${r.plugin.id}": ${r.step} command ${JSON.stringify(cmd)}`;
    let why: string;
    if (e instanceof ExecError && e.timedOut)
      why = `${e.message.replace(/^.* failed: /, '')} (ARGOCD_EXEC_TIMEOUT)`;
    else if (e instanceof ExecError && e.exitCode !== null)
      why = `failed with exit code ${e.exitCode}${e.stderr.trim() ? `: ${trimStderr(e.stderr)}` : ''}`;
    else why = `failed: ${e.message}`;
    throw new RenderError(where, scrub(`${what} ${why}`, secrets));
  }
}

/**
 * The plugin that renders this source, or undefined when it is not a plugin source. Throws a RenderError
 * naming the plugin and `--plugin-config` when the source names a plugin that no configuration provides.
 */
export async function selectPlugin(
  req: RenderRequest,
  dir: string,
  tools: RenderTools,
): Promise<PluginConfig | undefined> {
  const s = req.source;
  const explicit = s.plugin !== undefined;
  if (!explicit && (s.helm || s.kustomize || s.directory)) return undefined;
  const none: PluginConfigSet = { plugins: [], notes: [] };
  // Plugins that cannot be read fail plugin sources only: discovery of the others falls back (header).
  const set = (await (explicit ? tools.plugins?.() : tools.plugins?.().catch(() => none))) ?? none;
  if (!explicit && discoveryOrder(set.plugins).length === 0) return undefined;
  const where = relative(req.root, dir) || '.';
  // Discovery commands see the build environment only for implicit sources (GetAppSourceType's env),
  // the plugin's whole environment for plugin sources (DetectConfigManagementPlugin's).
  const env = explicit ? pluginEnv(req, s.plugin) : Object.entries(buildEnv(req));
  let lastError: unknown;
  const found = await detectPlugin(set.plugins, s.plugin?.name ?? '', dir, async (plugin) => {
    const cwd = await workCopy(req, dir, tools, plugin.preserveFileMode);
    try {
      const run = { plugin, step: 'discover', command: plugin.discover.command!, cwd, env };
      return (await runCommand(run, tools, where)) !== '';
    } catch (err) {
      lastError = err;
      return false;
    }
  });
  if (!('missing' in found)) return found;
  if (!explicit) return undefined;
  const known = set.plugins.map((p) => p.id).join(', ') || 'none';
  const cause = lastError instanceof RenderError ? `; ${lastError.reason}` : '';
  const notes = set.notes.length > 0 ? `; ${set.notes.join('; ')}` : '';
  const name = s.plugin?.name ? `config management plugin "${s.plugin.name}"` : 'a config management plugin';
  throw new RenderError(
    where,
    `${name} is needed: ${found.missing}${cause} (configured: ${known}); pass its plugin.yaml with --plugin-config${notes}`,
  );
}

/** Runs `plugin` on the source in `dir` (see the header). */
export async function renderPlugin(
  req: RenderRequest,
  dir: string,
  plugin: PluginConfig,
  tools: RenderTools,
): Promise<RenderResult> {
  const where = relative(req.root, dir) || '.';
  const cwd = await workCopy(req, dir, tools, plugin.preserveFileMode);
  const env = pluginEnv(req, req.source.plugin);
  if (plugin.init) await runCommand({ plugin, step: 'init', command: plugin.init, cwd, env }, tools, where);
  const out = await runCommand(
    { plugin, step: 'generate', command: plugin.generate, cwd, env },
    tools,
    where,
  );
  try {
    return { type: 'Plugin', tool: '', objects: parseObjects(out), warnings: [] };
  } catch (err) {
    if (err instanceof ObjectsError)
      throw new RenderError(where, scrub(`plugin "${plugin.id}" output: ${err.message}`, secretsOf(env)));
    throw err;
  }
}
