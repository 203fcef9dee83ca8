/**
 * CustomResourceDefinition specifics: the name rule (`<plural>.<group>`) and the status a real server's
 * CRD controllers would set at once (acceptedNames, NamesAccepted and Established conditions,
 * storedVersions), so `kubectl wait --for condition=established` and clients that check it proceed.
 * Condition transition times are kept across updates.
 */
import { ApiError } from './errors.js';
import { now } from './managed-fields.js';
import type { JsonMap, KObject } from './types.js';
import { isMap } from './types.js';

export function crdStatus(crd: KObject, old: KObject | undefined): void {
  const spec = isMap(crd['spec']) ? crd['spec'] : {};
  const names = isMap(spec['names']) ? spec['names'] : {};
  const expected = `${String(names['plural'] ?? '')}.${String(spec['group'] ?? '')}`;
  if (crd.metadata.name !== expected) {
    throw new ApiError(
      422,
      'Invalid',
      `CustomResourceDefinition.apiextensions.k8s.io "${crd.metadata.name}" is invalid: metadata.name: Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group`,
    );
  }
  const versions = Array.isArray(spec['versions']) ? spec['versions'].filter(isMap) : [];
  const storage = versions.find((v) => v['storage'] === true) ?? versions[0];
  const prev = isMap(old?.['status']) ? (old['status'] as JsonMap) : undefined;
  const when = (type: string): string => {
    const c = Array.isArray(prev?.['conditions'])
      ? prev['conditions'].find((x) => isMap(x) && x['type'] === type)
      : undefined;
    return isMap(c) ? String(c['lastTransitionTime']) : now();
  };
  crd['status'] = {
    acceptedNames: {
      ...names,
      listKind: String(names['listKind'] ?? `${String(names['kind'] ?? '')}List`),
      singular: String(names['singular'] ?? String(names['kind'] ?? '').toLowerCase()),
    },
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        reason: 'NoConflicts',
        message: 'no conflicts found',
        lastTransitionTime: when('NamesAccepted'),
      },
      {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
        lastTransitionTime: when('Established'),
      },
    ],
    storedVersions: storage ? [String(storage['name'])] : [],
  };
}
