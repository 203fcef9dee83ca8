/** argocd-cm parsing (src/apps/settings.ts) against the key forms of argo-cd util/settings/settings.go. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  knownTypeFieldsOf,
  loadArgoCdSettingsFile,
  overrideIgnoreRules,
  parseArgoCdSettings,
} from '../../src/apps/index.js';
import type { KubeObject } from '../../src/cluster/index.js';
import { UsageError } from '../../src/common/index.js';
import { tempDir } from '../support/git.js';

const cm = (data: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-cm' }, data }) as KubeObject;

describe('argocd-cm settings', () => {
  it('kustomize keys: buildOptions and versions registered by kustomize.path.<v> / kustomize.version.<v>', () => {
    const s = parseArgoCdSettings(
      cm({
        'kustomize.buildOptions': '--enable-helm --load-restrictor LoadRestrictionsNone',
        'kustomize.path.v5.8.1': '/custom/kustomize-5.8.1',
        'kustomize.version.v4.5.7': '/custom/kustomize-4.5.7',
        'kustomize.buildOptions.v4.5.7': '--enable_alpha_plugins',
      }),
      'test',
    );
    assert.deepEqual(s.kustomize, {
      buildOptions: '--enable-helm --load-restrictor LoadRestrictionsNone',
      versions: { 'v5.8.1': '/custom/kustomize-5.8.1', 'v4.5.7': '/custom/kustomize-4.5.7' },
    });
    assert.deepEqual(parseArgoCdSettings(cm({}), 'test').kustomize, { buildOptions: '', versions: {} });
    assert.throws(
      () => parseArgoCdSettings(cm({ 'kustomize.path.v5': '/a', 'kustomize.version.v5': '/b' }), 'test'),
      /found duplicate kustomize version: v5/,
    );
  });

  it('an empty ConfigMap gives Argo CD defaults', () => {
    const s = parseArgoCdSettings(cm({}), 'test');
    assert.deepEqual(s.overrides, {});
    assert.equal(s.exclusions, undefined);
    assert.equal(s.inclusions, undefined);
    assert.deepEqual(s.compare, {
      ignoreAggregatedRoles: false,
      ignoreResourceStatusField: 'all',
      ignoreDifferencesOnResourceUpdates: true,
    });
    assert.deepEqual(s.sensitiveAnnotations, []);
    assert.equal(s.trackingMethod, undefined);
    assert.equal(s.instanceLabelKey, undefined);
  });

  it('split keys: <group>_<Kind>, <Kind> for the core group, all for */*', () => {
    const s = parseArgoCdSettings(
      cm({
        'resource.customizations.health.cert-manager.io_Certificate': 'return {status="Healthy"}',
        'resource.customizations.useOpenLibs.cert-manager.io_Certificate': 'true',
        'resource.customizations.health.ConfigMap': 'return nil',
        'resource.customizations.ignoreDifferences.all': 'managedFieldsManagers: [kube-controller-manager]',
        'resource.customizations.ignoreDifferences.apps_Deployment':
          'jsonPointers: [/spec/replicas]\njqPathExpressions: [.spec.template.metadata.annotations]',
        'resource.customizations.actions.apps_Deployment': 'discovery.lua: return {}',
        'resource.customizations.ignoreResourceUpdates.all': 'jsonPointers: [/status]',
      }),
      'test',
    );
    assert.equal(s.overrides['cert-manager.io/Certificate']?.healthLua, 'return {status="Healthy"}');
    assert.equal(s.overrides['cert-manager.io/Certificate']?.useOpenLibs, true);
    assert.equal(s.overrides['ConfigMap']?.healthLua, 'return nil');
    assert.deepEqual(s.overrides['*/*']?.ignoreDifferences.managedFieldsManagers, [
      'kube-controller-manager',
    ]);
    assert.deepEqual(overrideIgnoreRules(s), [
      { group: '*', kind: '*', managedFieldsManagers: ['kube-controller-manager'] },
      {
        group: 'apps',
        kind: 'Deployment',
        jsonPointers: ['/spec/replicas'],
        jqPathExpressions: ['.spec.template.metadata.annotations'],
      },
    ]);
  });

  it('managedFieldsManagers only for exact <group>/<Kind> keys (_<Kind> for core) and all, as HasIgnoreDifference', () => {
    const s = parseArgoCdSettings(
      cm({
        'resource.customizations.ignoreDifferences.ConfigMap':
          'managedFieldsManagers: [a]\njsonPointers: [/data/x]',
        'resource.customizations.ignoreDifferences._Secret': 'managedFieldsManagers: [b]',
        'resource.customizations.ignoreDifferences.*.example.com_Widget': 'managedFieldsManagers: [c]',
        'resource.customizations.ignoreDifferences.batch_Job': 'managedFieldsManagers: [d]',
      }),
      'test',
    );
    assert.deepEqual(overrideIgnoreRules(s), [
      { group: '', kind: 'ConfigMap', jsonPointers: ['/data/x'] },
      { group: '', kind: 'Secret', managedFieldsManagers: ['b'] },
      { group: 'batch', kind: 'Job', managedFieldsManagers: ['d'] },
    ]);
  });

  it('the combined resource.customizations key, split keys overriding its fields', () => {
    const s = parseArgoCdSettings(
      cm({
        'resource.customizations': [
          'argoproj.io/Rollout:',
          '  health.lua: |',
          '    return {status="Suspended"}',
          '  health.lua.useOpenLibs: true',
          '  ignoreDifferences: |',
          '    jsonPointers:',
          '    - /spec/replicas',
          '"*.crossplane.io/*":',
          '  health.lua: return {status="Healthy"}',
        ].join('\n'),
        'resource.customizations.health.argoproj.io_Rollout': 'return {status="Degraded"}',
      }),
      'test',
    );
    assert.equal(s.overrides['argoproj.io/Rollout']?.healthLua, 'return {status="Degraded"}');
    assert.equal(s.overrides['argoproj.io/Rollout']?.useOpenLibs, true);
    assert.deepEqual(s.overrides['argoproj.io/Rollout']?.ignoreDifferences.jsonPointers, ['/spec/replicas']);
    assert.equal(s.overrides['*.crossplane.io/*']?.healthLua, 'return {status="Healthy"}');
  });

  it('exclusions, inclusions, compare options, sensitive annotations and tracking', () => {
    const s = parseArgoCdSettings(
      cm({
        'resource.exclusions':
          '- apiGroups: ["*.example.com"]\n  kinds: [Widget]\n  clusters: ["https://prod*"]\n',
        'resource.inclusions': '- apiGroups: [""]\n',
        'resource.compareoptions': 'ignoreAggregatedRoles: true\nignoreResourceStatusField: crd\n',
        'resource.sensitive.mask.annotations': ' token, vault.example.com/secret ,',
        'application.resourceTrackingMethod': 'annotation+label',
        'application.instanceLabelKey': 'argocd.argoproj.io/instance',
      }),
      'test',
    );
    assert.deepEqual(s.exclusions, [
      { apiGroups: ['*.example.com'], kinds: ['Widget'], clusters: ['https://prod*'] },
    ]);
    assert.deepEqual(s.inclusions, [{ apiGroups: [''], kinds: [], clusters: [] }]);
    assert.equal(s.compare.ignoreAggregatedRoles, true);
    assert.equal(s.compare.ignoreResourceStatusField, 'crd');
    assert.deepEqual(s.sensitiveAnnotations, ['token', 'vault.example.com/secret']);
    assert.equal(s.trackingMethod, 'annotation+label');
    assert.equal(s.instanceLabelKey, 'argocd.argoproj.io/instance');
    // An empty resource.exclusions is present (only the core exclusions then apply).
    assert.deepEqual(parseArgoCdSettings(cm({ 'resource.exclusions': '' }), 'test').exclusions, []);
  });

  it('ignoreResourceStatusField: none/off/false are none; an unknown value is all, with a warning', () => {
    for (const v of ['none', 'off', 'false'])
      assert.equal(
        parseArgoCdSettings(cm({ 'resource.compareoptions': `ignoreResourceStatusField: "${v}"` }), 't')
          .compare.ignoreResourceStatusField,
        'none',
      );
    const s = parseArgoCdSettings(cm({ 'resource.compareoptions': 'ignoreResourceStatusField: some' }), 't');
    assert.equal(s.compare.ignoreResourceStatusField, 'all');
    assert.match(s.warnings.join('\n'), /unrecognized ignoreResourceStatusField "some"/);
  });

  it('an unknown tracking method is annotation, with a warning', () => {
    const s = parseArgoCdSettings(cm({ 'application.resourceTrackingMethod': 'uid' }), 't');
    assert.equal(s.trackingMethod, 'annotation');
    assert.match(s.warnings.join('\n'), /unknown application.resourceTrackingMethod "uid"/);
  });

  it('bad values are UsageErrors naming the origin and the key', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [
        { 'resource.customizations.foo.apps_Deployment': 'x' },
        /resource customization type foo not supported/,
      ],
      [
        { 'resource.customizations.health.a_b_c': 'x' },
        /group kind should be <group>_<kind> or <kind>, got 'a_b_c'/,
      ],
      [{ 'resource.customizations.useOpenLibs.ConfigMap': 'yes' }, /invalid boolean "yes"/],
      [{ 'resource.exclusions': 'apiGroups: [x]' }, /resource.exclusions: expected a list/],
      [{ 'resource.inclusions': '- [' }, /failed to read resource.inclusions/],
      [
        { 'resource.compareoptions': 'ignoreAggregatedRoles: maybe' },
        /ignoreAggregatedRoles must be a boolean/,
      ],
      [
        { 'resource.customizations.ignoreDifferences.ConfigMap': 'jsonPointers: data' },
        /jsonPointers must be a list of strings/,
      ],
      [
        { 'resource.customizations.ignoreDifferences.ConfigMap': 'jqPathExpressions: ["..["]' },
        /resource.customizations.ignoreDifferences: jqPathExpression "\.\.\["/,
      ],
      [{ 'resource.customizations': '- a' }, /expected a map of <group>\/<Kind> to overrides/],
    ];
    for (const [data, message] of cases) {
      assert.throws(
        () => parseArgoCdSettings(cm(data), 'origin-x'),
        (err: unknown) =>
          err instanceof UsageError && /^origin-x/.test(err.message) && message.test(err.message),
        JSON.stringify(data),
      );
    }
  });

  it('--argocd-cm FILE: the ConfigMap named argocd-cm, or the only ConfigMap; errors name the flag', async () => {
    const dir = tempDir('kg-settings-');
    const two = join(dir, 'two.yaml');
    writeFileSync(
      two,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\ndata: {}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  resource.sensitive.mask.annotations: token\n',
    );
    assert.deepEqual((await loadArgoCdSettingsFile(two)).sensitiveAnnotations, ['token']);
    const only = join(dir, 'only.yaml');
    writeFileSync(
      only,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {application.instanceLabelKey: team}\n',
    );
    const s = await loadArgoCdSettingsFile(only);
    assert.equal(s.instanceLabelKey, 'team');
    assert.equal(s.origin, `file ${only}`);
    const none = join(dir, 'none.yaml');
    writeFileSync(none, 'apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n');
    await assert.rejects(
      loadArgoCdSettingsFile(none),
      /--argocd-cm .*none.yaml: failed to read argocd-cm: no ConfigMap in the file/,
    );
    const many = join(dir, 'many.yaml');
    writeFileSync(many, 'kind: ConfigMap\nmetadata: {name: a}\n---\nkind: ConfigMap\nmetadata: {name: b}\n');
    await assert.rejects(loadArgoCdSettingsFile(many), /2 ConfigMaps and none named argocd-cm/);
    await assert.rejects(
      loadArgoCdSettingsFile(join(dir, 'missing.yaml')),
      /missing.yaml: failed to read: no such file/,
    );
  });

  it('knownTypeFields: split and combined forms, unknown types dropped with a warning, bad shapes an error', () => {
    const s = parseArgoCdSettings(
      cm({
        'resource.customizations.knownTypeFields.argoproj.io_Rollout':
          '- field: spec.template.spec\n  type: core/v1/PodSpec\n- field: spec.x\n  type: cpu',
        'resource.customizations': [
          'example.com/Widget:',
          '  knownTypeFields:',
          '  - field: spec.size',
          '    type: core/Quantity',
          '  - field: spec.timeout',
          '    type: meta/v1/Duration',
          'ConfigMap:',
          '  knownTypeFields:',
          '  - {field: data.spec, type: core/v1/Container}',
        ].join('\n'),
      }),
      'test',
    );
    assert.deepEqual(knownTypeFieldsOf(s), [
      { group: 'example.com', kind: 'Widget', field: 'spec.size', type: 'core/Quantity' },
      { group: 'example.com', kind: 'Widget', field: 'spec.timeout', type: 'meta/v1/Duration' },
      { group: '', kind: 'ConfigMap', field: 'data.spec', type: 'core/v1/Container' },
      { group: 'argoproj.io', kind: 'Rollout', field: 'spec.template.spec', type: 'core/v1/PodSpec' },
    ]);
    assert.deepEqual(s.warnings, [
      "test: resource.customizations.knownTypeFields.argoproj.io_Rollout: type 'cpu' is not supported (field spec.x is not normalized)",
    ]);
    assert.throws(
      () =>
        parseArgoCdSettings(
          cm({ 'resource.customizations.knownTypeFields.apps_Deployment': 'field: x' }),
          'test',
        ),
      (e: unknown) =>
        e instanceof UsageError &&
        /^test: failed to read resource.customizations.knownTypeFields.apps_Deployment: knownTypeFields must be a list/.test(
          e.message,
        ),
    );
  });
});
