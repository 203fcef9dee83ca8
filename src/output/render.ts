/**
 * Printers for `kubectl gitops render`: multi-document YAML with a comment header per app, or JSON
 * `{"apps": [{"name", "source", "sources"?, "revision", "objects"}]}` (documented in docs/usage/render.md).
 * An app that failed to load or render is listed in its place too: `# app: <name>  error: <message>`, or
 * `{"name", "error", "objects": []}`, so an app-of-apps child that fails is never missing from the output.
 */
import { stringify } from 'yaml';
import { YAML_OUT } from './structured.js';
import { fastObjectYaml } from './yaml-fast.js';
import type { RenderedApp } from '../source/index.js';

export type RenderFormat = 'yaml' | 'json';

/** One app as `-o json` prints it (cache bookkeeping left out). */
export function renderedAppJson(r: RenderedApp): Record<string, unknown> {
  const first = r.sources.find((s) => s.type !== undefined) ?? r.sources[0]!;
  const { cached: _c, ...source } = first;
  return {
    name: r.app.name,
    source,
    ...(r.app.multiSource ? { sources: r.sources.map(({ cached: _x, ...s }) => s) } : {}),
    revision: r.revision,
    objects: r.objects,
  };
}

export function renderedAppYaml(r: RenderedApp): string {
  const header = `# app: ${r.app.name}  revision: ${r.revision}\n`;
  // The fast printer gives the library's exact text for the usual shapes, at a fraction of the cost.
  const docs = r.objects.map(
    (o) => `---\n${fastObjectYaml(o as Record<string, unknown>) ?? stringify(o, YAML_OUT)}`,
  );
  return header + docs.join('');
}

/** An app that failed, in its place: its name and its one-line error. */
export interface FailedApp {
  name: string;
  error: string;
}

const failed = (a: RenderedApp | FailedApp): a is FailedApp => 'error' in a;

/** The whole stdout document for a set of apps (failed ones listed in their place with their error). */
export function renderApps(apps: ReadonlyArray<RenderedApp | FailedApp>, format: RenderFormat): string {
  if (format === 'json')
    return `${JSON.stringify({ apps: apps.map((a) => (failed(a) ? { name: a.name, error: a.error, objects: [] } : renderedAppJson(a))) }, null, 2)}\n`;
  return apps.map((a) => (failed(a) ? `# app: ${a.name}  error: ${a.error}\n` : renderedAppYaml(a))).join('');
}

/** One app's file for --output-dir. */
export function renderAppFile(app: RenderedApp, format: RenderFormat): string {
  return format === 'json' ? `${JSON.stringify(renderedAppJson(app), null, 2)}\n` : renderedAppYaml(app);
}
