// The schema facts come from Kubernetes' published OpenAPI; these tests check them against the API types'
// documented struct tags (k8s.io/api core/v1 and apps/v1 types.go: `patchStrategy`/`patchMergeKey`,
// `+listType`/`+listMapKey`) and the OpenAPI extension meanings in kubernetes/api/openapi-spec/README.md.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crdWithSpec } from '../support/crds.js';
import {
  PUBLISHED_OPENAPI,
  SchemaCatalog,
  builtinCatalog,
  compareVersions,
  customResourceDefinitionName,
} from '../../src/schema/index.js';
import { mergeKeyFor } from '../../src/diff/rules.js';

const schemas = builtinCatalog();
const pod = { group: '', version: 'v1', kind: 'Pod' };

describe('published Kubernetes OpenAPI', () => {
  it('carries a named Kubernetes release and finds kinds by x-kubernetes-group-version-kind', () => {
    assert.match(PUBLISHED_OPENAPI.kubernetesVersion, /^v1\.\d+\.\d+$/);
    assert.equal(schemas.definitionNameFor(pod), 'io.k8s.api.core.v1.Pod');
    assert.equal(
      schemas.definitionNameFor({ group: 'apps', version: 'v1', kind: 'Deployment' }),
      'io.k8s.api.apps.v1.Deployment',
    );
    assert.equal(schemas.schemaFor({ group: 'example.com', version: 'v1', kind: 'Nope' }), undefined);
    // Shared meta types list every group; they are no kind's root schema.
    assert.equal(
      schemas.definitionNameFor({ group: 'apps', version: 'v1', kind: 'DeleteOptions' }),
      undefined,
    );
  });

  it('resolves $ref to the definition and keeps the field extensions on the field', () => {
    const spec = schemas.property(schemas.schemaFor(pod), 'spec');
    assert.equal(spec?.['$ref'], '#/definitions/io.k8s.api.core.v1.PodSpec');
    assert.ok(schemas.property(schemas.resolve(spec), 'containers'));
    const containers = schemas.fieldAt(schemas.schemaFor(pod), ['spec', 'containers']);
    assert.deepEqual(schemas.factsOf(containers), {
      patchStrategies: ['merge'],
      patchMergeKey: 'name',
      intOrString: false,
    });
  });

  it('knows the merge keys of the PodSpec lists (core/v1 types.go patchMergeKey tags)', () => {
    const facts = (path: string) => schemas.factsOf(schemas.fieldAt(schemas.schemaFor(pod), path.split('.')));
    assert.equal(facts('spec.containers[].ports').patchMergeKey, 'containerPort');
    assert.deepEqual(facts('spec.containers[].ports').listMapKeys, ['containerPort', 'protocol']);
    assert.equal(facts('spec.containers[].volumeMounts').patchMergeKey, 'mountPath');
    assert.equal(facts('spec.volumes').patchMergeKey, 'name');
    assert.equal(facts('spec.topologySpreadConstraints').patchMergeKey, 'topologyKey');
    assert.deepEqual(facts('spec.topologySpreadConstraints').listMapKeys, [
      'topologyKey',
      'whenUnsatisfiable',
    ]);
    // metadata.finalizers: patchStrategy "merge" on a list of strings (merged as a set, no key).
    assert.deepEqual(facts('metadata.finalizers').patchStrategies, ['merge']);
    assert.equal(facts('metadata.finalizers').patchMergeKey, undefined);
    // args: no patch strategy, so a strategic merge patch replaces the list.
    assert.deepEqual(facts('spec.containers[].args').patchStrategies, []);
  });

  it('knows retainKeys, int-or-string and Service ports keyed by port', () => {
    const deploy = schemas.schemaForGroupKind('apps', 'Deployment');
    assert.deepEqual(schemas.factsOf(schemas.fieldAt(deploy, ['spec', 'strategy'])).patchStrategies, [
      'retainKeys',
    ]);
    const svc = schemas.schemaForGroupKind('', 'Service');
    assert.equal(schemas.factsOf(schemas.fieldAt(svc, ['spec', 'ports[]', 'targetPort'])).intOrString, true);
    assert.equal(schemas.factsOf(schemas.fieldAt(svc, ['spec', 'ports[]', 'port'])).intOrString, false);
    assert.equal(schemas.factsOf(schemas.fieldAt(svc, ['spec', 'ports'])).patchMergeKey, 'port');
  });

  it('prefers GA over beta over alpha, newer first', () => {
    assert.deepEqual(['v1alpha1', 'v2beta1', 'v1', 'v1beta1', 'v2', 'v2beta2'].sort(compareVersions), [
      'v2',
      'v1',
      'v2beta2',
      'v2beta1',
      'v1beta1',
      'v1alpha1',
    ]);
    const hpa = schemas.schemaForGroupKind('autoscaling', 'HorizontalPodAutoscaler');
    assert.deepEqual(hpa?.['x-kubernetes-group-version-kind'], [
      { group: 'autoscaling', kind: 'HorizontalPodAutoscaler', version: 'v1' },
    ]);
  });
});

describe('CRD schemas feed the same lookups', () => {
  const crd = crdWithSpec('example.com', 'Widget', {
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' } } },
    },
    port: { 'x-kubernetes-int-or-string': true },
  });

  it('adds a definition per served version, named as the real server names it, and removes it', () => {
    const catalog = new SchemaCatalog();
    const gvk = { group: 'example.com', version: 'v1', kind: 'Widget' };
    assert.equal(customResourceDefinitionName(gvk), 'com.example.v1.Widget');
    catalog.addCustomResourceDefinition(crd);
    const root = catalog.schemaFor(gvk);
    assert.ok(root);
    assert.equal(catalog.definitionNameFor({ ...gvk, kind: 'WidgetList' }), 'com.example.v1.WidgetList');
    const ports = catalog.factsOf(catalog.fieldAt(root, ['spec', 'ports']));
    assert.equal(ports.listType, 'map');
    assert.deepEqual(ports.listMapKeys, ['name']);
    assert.equal(catalog.factsOf(catalog.fieldAt(root, ['spec', 'port'])).intOrString, true);
    // metadata is the published ObjectMeta, as on a real server.
    assert.ok(catalog.property(catalog.resolve(catalog.property(root, 'metadata')), 'finalizers'));
    // The shared built-in catalog is untouched.
    assert.equal(builtinCatalog().schemaFor(gvk), undefined);
    catalog.removeCustomResourceDefinition('widgets.example.com');
    assert.equal(catalog.schemaFor(gvk), undefined);
  });
});

describe('diff rules read merge keys from the schema', () => {
  it('built-in kinds merge keyed lists; custom resources and unkeyed lists are atomic', () => {
    assert.equal(mergeKeyFor('apps/Deployment', 'spec.template.spec.containers'), 'name');
    assert.equal(mergeKeyFor('apps/Deployment', 'spec.template.spec.containers[].env'), 'name');
    assert.equal(mergeKeyFor('batch/CronJob', 'spec.jobTemplate.spec.template.spec.volumes'), 'name');
    assert.equal(mergeKeyFor('/Service', 'spec.ports'), 'port');
    assert.equal(mergeKeyFor('/Pod', 'metadata.ownerReferences'), 'uid');
    assert.equal(mergeKeyFor('/Pod', 'spec.containers[].args'), undefined);
    assert.equal(mergeKeyFor('/Pod', 'metadata.finalizers'), undefined);
    assert.equal(mergeKeyFor('argoproj.io/Rollout', 'spec.template.spec.containers'), undefined);
  });
});
