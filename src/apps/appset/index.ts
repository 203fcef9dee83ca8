/**
 * ApplicationSets expanded locally (the door of `src/apps/appset/`), as Argo CD's ApplicationSet
 * controller generates Applications (docs/appsets.md names the upstream files followed):
 *
 * - `expandApplicationSet(manifest, origin, ctx)` -> the generated Application manifests and parsed
 *   `Application`s; `ctx` supplies cluster Secrets (clusters generator) and a checkout of a repository at
 *   a revision (git generators read it at the revision being rendered).
 * - `loadApplicationSetFiles(paths)` reads the ApplicationSets of files and folders alone (`-f`; commands
 *   that read Applications too use src/apps `readAppFiles`, one pass for both); `loadClusterApplicationSets` those of the live Argo CD
 *   namespace (`--from-cluster`).
 * - Generators: list, clusters, git (directories, files), matrix, merge; templates: `{{param}}`
 *   (fasttemplate) or `goTemplate: true` (template.ts: a text/template subset with the functions listed in
 *   `GO_FUNCTIONS`), `templatePatch`. Anything else is a UsageError naming the ApplicationSet and the field.
 */
import { listAppFiles, type SourcedAppSet } from '../load.js';
import { describeSource, readKubeObjects } from '../../util/yaml-docs.js';
import { argoCdStringField } from '../string-fields.js';
import { isApplicationSet } from './expand.js';

export {
  expandApplicationSet,
  isApplicationSet,
  APPLICATIONSET_KIND,
  RESOURCES_FINALIZER,
} from './expand.js';
export type { ExpandContext, ExpandedAppSet } from './expand.js';
export type { AppSetCluster } from './generators.js';
export { goPathMatch } from './generators.js';
import type { ClusterAppSetsOptions } from './cluster.js';

export type { ClusterAppSetsOptions, SourcedAppSet };

/** The ApplicationSets of the live Argo CD namespace (`--from-cluster`; loads the cluster client on use). */
export async function loadClusterApplicationSets(options: ClusterAppSetsOptions): Promise<SourcedAppSet[]> {
  return (await import('./cluster.js')).loadClusterApplicationSets(options);
}
export { GO_FUNCTIONS, renderGoTemplate, replaceFast, sanitizeName, TemplateError } from './template.js';

/** Every ApplicationSet in `paths` (files or folders), file then document order. */
export async function loadApplicationSetFiles(paths: readonly string[]): Promise<SourcedAppSet[]> {
  const out: SourcedAppSet[] = [];
  for (const file of await listAppFiles(paths)) {
    for (const sourced of await readKubeObjects(file, argoCdStringField)) {
      if (isApplicationSet(sourced.object))
        out.push({ manifest: sourced.object, origin: describeSource(sourced) });
    }
  }
  return out;
}
