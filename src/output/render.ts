/**
 * Printers for `kubectl gitops render`: multi-document YAML with a comment header per app, or JSON
 * `{"apps": [{"name", "source", "sources"?, "revision", "objects"}]}` (documented in docs/usage/render.md).
 */
import { stringify } from 'yaml';
import { YAML_OUT } from './structured.js';
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
  const docs = r.objects.map((o) => `---\n${stringify(o, YAML_OUT)}`);
  return header + docs.join('');
}

/** The whole stdout document for a set of apps. */
export function renderApps(apps: readonly RenderedApp[], format: RenderFormat): string {
  if (format === 'json') return `${JSON.stringify({ apps: apps.map(renderedAppJson) }, null, 2)}\n`;
  return apps.map(renderedAppYaml).join('');
}

/** One app's file for --output-dir. */
export function renderAppFile(app: RenderedApp, format: RenderFormat): string {
  return format === 'json' ? `${JSON.stringify(renderedAppJson(app), null, 2)}\n` : renderedAppYaml(app);
}
