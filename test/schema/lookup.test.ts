// SchemaLookup: schema facts by object path, for built-in kinds (Kubernetes' published OpenAPI), custom
// resources (the CRD's openAPIV3Schema with x-kubernetes-list-type / -list-map-keys) and Argo CD's
// knownTypeFields (util/argo/normalizers/knowntypes_normalizer.go).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SchemaCatalog, builtinCatalog, listItemKey, schemaLookup } from '../../src/schema/index.js';
import type { JsonMap } from '../../src/common/index.js';
import { widgetCrd } from '../support/crds.js';

describe('schemaLookup', () => {
  it('answers built-in list shapes from the published OpenAPI (list-map keys before merge keys)', () => {
    const lookup = schemaLookup(builtinCatalog());
    const svc = lookup.kindSchema('v1', 'Service');
    assert.equal(svc.definitionName, 'io.k8s.api.core.v1.Service');
    assert.deepEqual(svc.listShape('spec.ports'), {
      kind: 'map',
      keys: ['port', 'protocol'],
      keyDefaults: { protocol: 'TCP' },
    });
    const dep = lookup.kindSchema('apps/v1', 'Deployment');
    assert.deepEqual(dep.listShape('spec.template.spec.containers'), { kind: 'map', keys: ['name'] });
    assert.deepEqual(dep.listShape('spec.template.spec.containers[].args'), { kind: 'atomic' });
    assert.deepEqual(dep.listShape('spec.template.spec.nope'), { kind: 'atomic' });
    assert.equal(dep.facts('spec.strategy.rollingUpdate.maxSurge').intOrString, true);
    assert.equal(dep.facts('spec.replicas').intOrString, false);
  });

  it('uses the closest version the catalog has when the asked one is newer (autoscaling/v2 -> v2beta2)', () => {
    const hpa = schemaLookup(builtinCatalog()).kindSchema('autoscaling/v2', 'HorizontalPodAutoscaler');
    assert.equal(hpa.definitionName, 'io.k8s.api.autoscaling.v2beta2.HorizontalPodAutoscaler');
  });

  it("reads a CRD's x-kubernetes-list-type and -list-map-keys, and follows CRDs added and removed", () => {
    const catalog = new SchemaCatalog();
    const lookup = schemaLookup(catalog);
    assert.equal(lookup.kindSchema('example.com/v1', 'Widget').definitionName, undefined);
    assert.deepEqual(lookup.kindSchema('example.com/v1', 'Widget').listShape('spec.endpoints'), {
      kind: 'atomic',
    });
    catalog.addCustomResourceDefinition(widgetCrd());
    const widget = lookup.kindSchema('example.com/v1', 'Widget');
    assert.equal(widget.definitionName, 'com.example.v1.Widget');
    assert.deepEqual(widget.listShape('spec.endpoints'), {
      kind: 'map',
      keys: ['name', 'port'],
      keyDefaults: { port: 80 },
    });
    assert.deepEqual(widget.listShape('spec.tags'), { kind: 'set' });
    assert.deepEqual(widget.listShape('spec.plain'), { kind: 'atomic' });
    catalog.removeCustomResourceDefinition('widgets.example.com');
    assert.deepEqual(lookup.kindSchema('example.com/v1', 'Widget').listShape('spec.endpoints'), {
      kind: 'atomic',
    });
  });

  it('lays knownTypeFields over a custom kind: the field is read as the built-in type', () => {
    const catalog = new SchemaCatalog();
    catalog.addCustomResourceDefinition(widgetCrd());
    const plain = schemaLookup(catalog).kindSchema('example.com/v1', 'Widget');
    assert.deepEqual(plain.listShape('spec.podSpec.containers'), { kind: 'atomic' });
    const lookup = schemaLookup(catalog, [
      { group: 'example.com', kind: 'Widget', field: 'spec.podSpec', type: 'core/v1/PodSpec' },
      { group: 'example.com', kind: 'Widget', field: 'spec.plain', type: 'core/v1/Container' },
      { group: 'example.com', kind: 'Widget', field: 'spec.size', type: 'core/Quantity' },
    ]);
    const widget = lookup.kindSchema('example.com/v1', 'Widget');
    assert.deepEqual(widget.listShape('spec.podSpec.containers'), { kind: 'map', keys: ['name'] });
    // A list on the known path holds the type in each item, as Argo CD's normalize walks lists.
    assert.deepEqual(widget.listShape('spec.plain[].ports'), {
      kind: 'map',
      keys: ['containerPort', 'protocol'],
      keyDefaults: { protocol: 'TCP' },
    });
    const obj: JsonMap = {
      spec: {
        size: '1024Mi',
        plain: [{ name: 'a', resources: { limits: { cpu: '1000m' } } }],
        podSpec: { containers: [{ name: 'c', resources: { requests: { memory: '1Gi' } } }] },
      },
    };
    const seen: string[] = [];
    widget.valuesOf(obj, 'io.k8s.apimachinery.pkg.api.resource.Quantity', (parent, key) =>
      seen.push(`${String(key)}=${String((parent as Record<string | number, unknown>)[key])}`),
    );
    assert.deepEqual(seen.sort(), ['cpu=1000m', 'memory=1Gi', 'size=1024Mi']);
  });

  it("gives a Rollout's pod template the PodSpec type by default, as Argo CD does", () => {
    const rollout = schemaLookup(new SchemaCatalog()).kindSchema('argoproj.io/v1alpha1', 'Rollout');
    assert.deepEqual(rollout.listShape('spec.template.spec.containers'), { kind: 'map', keys: ['name'] });
    const configured = schemaLookup(new SchemaCatalog(), [
      { group: 'argoproj.io', kind: 'Rollout', field: 'spec.other', type: 'core/v1/PodSpec' },
    ]).kindSchema('argoproj.io/v1alpha1', 'Rollout');
    assert.deepEqual(configured.listShape('spec.template.spec.containers'), { kind: 'atomic' });
    assert.deepEqual(configured.listShape('spec.other.containers'), { kind: 'map', keys: ['name'] });
  });

  it('identifies map-list items by their keys, an omitted key at its default (defaults table, CRD default)', () => {
    const svc = schemaLookup(builtinCatalog()).kindSchema('v1', 'Service').listShape('spec.ports');
    assert.equal(svc.kind, 'map');
    if (svc.kind !== 'map') return;
    assert.equal(
      listItemKey({ port: 80, name: 'http' }, svc),
      listItemKey({ protocol: 'TCP', port: 80 }, svc),
    );
    assert.notEqual(listItemKey({ port: 80 }, svc), listItemKey({ protocol: 'UDP', port: 80 }, svc));
    assert.equal(listItemKey({ port: 80 }, { keys: ['port', 'protocol'] }), undefined, 'no default, no key');
    const catalog = new SchemaCatalog();
    catalog.addCustomResourceDefinition(widgetCrd());
    const endpoints = schemaLookup(catalog)
      .kindSchema('example.com/v1', 'Widget')
      .listShape('spec.endpoints');
    assert.equal(endpoints.kind, 'map');
    if (endpoints.kind !== 'map') return;
    assert.equal(listItemKey({ name: 'a' }, endpoints), JSON.stringify({ name: 'a', port: 80 }));
  });
});
