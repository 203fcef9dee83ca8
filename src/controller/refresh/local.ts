/**
 * A local sync's desired state (`operation.sync.manifests`; Argo CD's `CompareAppState` with
 * `localManifests`, controller/state.go): the objects as given stand in for the render; nothing is
 * rendered or fetched, and the revision is the operation's own.
 */
import type { Application } from '../../apps/index.js';
import type { KubeObject } from '../../cluster/index.js';
import type { RenderedApp } from '../../source/index.js';

/** The objects of a local sync and the revision it reports. */
export interface LocalManifests {
  objects: readonly KubeObject[];
  revision: string;
}

export function localRender(app: Application, local: LocalManifests): RenderedApp {
  return {
    app,
    revision: local.revision,
    sources: app.sources.map((s) => ({
      repoURL: s.repoURL,
      path: s.path,
      targetRevision: s.targetRevision,
      revision: local.revision,
      cached: false,
    })),
    objects: local.objects.map((o) => structuredClone(o)),
    warnings: [],
  };
}
