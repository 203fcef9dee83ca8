/**
 * What every `ClusterState` of a run (or of the continuous loop) shares, from the options and argocd-cm:
 * tracking, the managedFields managers the comparison reads (our own plus every ignoreDifferences rule's
 * `managedFieldsManagers`), our appliers, argocd-cm's resource filter and knownTypeFields. Throws when
 * argocd-cm's filter or knownTypeFields do not parse (before anything is started).
 */
import type { Application } from '../../apps/index.js';
import { knownTypeFieldsOf, overrideIgnoreRules } from '../../apps/index.js';
import { DEFAULT_TRACKING_METHOD, OWN_FIELD_MANAGERS } from '../../common/index.js';
import type { ClusterStateOptions } from './cluster.js';
import { ResourceFilter } from './exclusions.js';
import type { StateManagerOptions } from './state.js';

export type SharedClusterOptions = Omit<ClusterStateOptions, 'conn' | 'namespaces' | 'scope' | 'clusterURL'>;

export function sharedClusterOptions(
  o: Pick<
    StateManagerOptions,
    'fieldManagers' | 'ignoreDifferences' | 'settings' | 'trackingMethod' | 'instanceLabelKey' | 'onEvent'
  > & { onWarning?: ((message: string) => void) | undefined },
  apps: readonly Application[],
): SharedClusterOptions {
  const managers = new Set([
    ...(o.fieldManagers ?? OWN_FIELD_MANAGERS),
    ...[
      ...apps.flatMap((a) => a.ignoreDifferences),
      ...(o.ignoreDifferences ?? []),
      ...(o.settings ? overrideIgnoreRules(o.settings) : []),
    ].flatMap((r) => r.managedFieldsManagers ?? []),
  ]);
  const resourceFilter = new ResourceFilter(o.settings);
  const knownTypeFields = knownTypeFieldsOf(o.settings);
  return {
    tracking: {
      method: o.trackingMethod ?? DEFAULT_TRACKING_METHOD,
      ...(o.instanceLabelKey ? { instanceLabelKey: o.instanceLabelKey } : {}),
      ...(o.settings?.installationId ? { installationId: o.settings.installationId } : {}),
    },
    managers,
    appliers: new Set(o.fieldManagers ?? OWN_FIELD_MANAGERS),
    resourceFilter,
    ...(o.onWarning ? { onWarning: o.onWarning } : {}),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
    knownTypeFields,
  };
}
