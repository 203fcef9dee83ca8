import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  annotationIgnores,
  compareResource,
  jqDelete,
  loadIgnoreDifferencesFile,
  parseIgnoreDifferences,
  parseJq,
} from '../../src/diff/index.js';
import type { IgnoreDifference, Json } from '../../src/diff/index.js';
import { UsageError } from '../../src/common/index.js';
import type { KubeObject } from '../../src/util/yaml-docs.js';
import { container, deploymentLive, deploymentTarget, podSpec } from './fixtures.js';
import type { Any } from './fixtures.js';

/** Live drifted in replicas (5), the web image, and an annotation "team/owner". */
function drifted(): KubeObject {
  const live = deploymentLive();
  const o = live as Any;
  o['spec']['replicas'] = 5;
  container(live)['image'] = 'nginx:1.24';
  o['metadata']['annotations']['team/owner'] = 'someone';
  return live;
}

function targetWithAnnotation(): KubeObject {
  const t = deploymentTarget();
  (t as Any)['metadata']['annotations']['team/owner'] = 'platform';
  return t;
}

const status = (
  ignoreDifferences: IgnoreDifference[],
  live = drifted(),
  target = targetWithAnnotation(),
): string => compareResource({ target, live, ignoreDifferences }).status;

const all: IgnoreDifference = {
  group: 'apps',
  kind: 'Deployment',
  jsonPointers: [
    '/spec/replicas',
    '/spec/template/spec/containers/0/image',
    '/metadata/annotations/team~1owner',
  ],
};

describe('ignoreDifferences: matching and JSON pointers', () => {
  it('Synced when every drifted field is ignored by pointer (with ~1 escapes)', () => {
    assert.equal(status([]), 'OutOfSync');
    assert.equal(status([all]), 'Synced');
  });

  it('one field left un-ignored keeps it OutOfSync', () => {
    assert.equal(status([{ ...all, jsonPointers: all.jsonPointers!.slice(0, 2) }]), 'OutOfSync');
  });

  it('matches group/kind globs and exact name/namespace only', () => {
    assert.equal(status([{ ...all, group: '*', kind: 'Deploy*' }]), 'Synced');
    assert.equal(status([{ ...all, group: '{apps,extensions}', kind: '*' }]), 'Synced');
    assert.equal(status([{ ...all, group: '' }]), 'OutOfSync', 'absent group is the core group');
    assert.equal(status([{ ...all, kind: 'StatefulSet' }]), 'OutOfSync');
    assert.equal(status([{ ...all, name: 'web', namespace: 'shop' }]), 'Synced');
    assert.equal(status([{ ...all, name: 'api' }]), 'OutOfSync');
    assert.equal(status([{ ...all, namespace: 'other' }]), 'OutOfSync');
  });

  it('group "*" also matches the core group "" (Argo CD glob.Match), so "all" overrides reach core kinds', () => {
    const target = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'git' } };
    const live = { ...target, data: { a: 'live' } };
    const verdict = (rules: IgnoreDifference[]): string =>
      compareResource({ target, live, ignoreDifferences: rules }).status;
    assert.equal(verdict([{ group: '*', kind: '*', jsonPointers: ['/data/a'] }]), 'Synced');
    assert.equal(verdict([{ group: '?*', kind: '*', jsonPointers: ['/data/a'] }]), 'OutOfSync');
  });

  it('a pointer to a missing path is not an error', () => {
    assert.equal(
      status([{ ...all, jsonPointers: [...all.jsonPointers!, '/spec/nothing/here', '/x/0/y'] }]),
      'Synced',
    );
  });
});

describe('ignoreDifferences: jq path expressions', () => {
  const jq = (...jqPathExpressions: string[]): IgnoreDifference[] => [
    { group: 'apps', kind: 'Deployment', jqPathExpressions },
  ];

  it('Synced with select on a container name, a bracketed annotation key and .spec.replicas', () => {
    assert.equal(
      status(
        jq(
          '.spec.template.spec.containers[] | select(.name == "web") | .image',
          '.metadata.annotations["team/owner"]',
          '.spec.replicas',
        ),
      ),
      'Synced',
    );
  });

  it('select that does not match leaves the drift visible', () => {
    const rules = jq(
      '.spec.template.spec.containers[] | select(.name != "web") | .image',
      '.metadata.annotations["team/owner"]',
      '.spec.replicas',
    );
    assert.equal(status(rules), 'OutOfSync');
  });

  it('an expression failing at run time (iterating null) is skipped, as gojq errors are', () => {
    assert.equal(status([...jq('.spec.nothing[] | .x'), all]), 'Synced');
    const doc: Json = { a: null, b: 1 };
    assert.throws(() => jqDelete(parseJq('.a[]'), doc), /cannot iterate over null/);
    jqDelete(parseJq('.a[]?, .b'), doc);
    assert.deepEqual(doc, { a: null });
  });

  it('deletes the paths gojq would: .[], [n], negative index, .., numbers, and/or, filters', () => {
    const run = (expr: string, doc: Json): Json => {
      jqDelete(parseJq(expr), doc);
      return doc;
    };
    assert.deepEqual(run('.data[]', { data: { a: '1', b: '2' }, k: 1 }), { data: {}, k: 1 });
    assert.deepEqual(run('.l[0], .l[-1]', { l: [1, 2, 3, 4] }), { l: [2, 3] });
    assert.deepEqual(run('.l[] | select(. > 2 and . != 4)', { l: [1, 2, 3, 4, 5] }), { l: [1, 2, 4] });
    assert.deepEqual(
      run('.c[] | select(.name | startswith("istio") or test("^linkerd"))', {
        c: [{ name: 'istio-proxy' }, { name: 'app' }, { name: 'linkerd-proxy' }],
      }),
      { c: [{ name: 'app' }] },
    );
    assert.deepEqual(
      run('.. | select(.nullable?) | .nullable', { a: { nullable: true, t: 's' }, b: [{ nullable: false }] }),
      {
        a: { t: 's' },
        b: [{ nullable: false }],
      },
    );
    assert.deepEqual(
      run('.webhooks[]?.clientConfig.caBundle', {
        webhooks: [{ clientConfig: { caBundle: 'x', url: 'u' } }],
      }),
      {
        webhooks: [{ clientConfig: { url: 'u' } }],
      },
    );
    assert.deepEqual(run('."a.b", .["c"]', { 'a.b': 1, c: 2, d: 3 }), { d: 3 });
  });

  it('unsupported syntax is a UsageError naming the expression and the column', () => {
    for (const [expr, col] of [
      ['.spec | map(.x)', 9],
      ['.a[', 4],
      ['.a = 1', 4],
      ['', 1],
      ['.a | @base64', 6],
    ] as const) {
      assert.throws(
        () => parseJq(expr),
        (err: unknown) =>
          err instanceof UsageError &&
          err.message.startsWith(`jqPathExpression ${JSON.stringify(expr)}: failed to parse:`) &&
          err.message.includes(`column ${col}`),
        expr,
      );
    }
    assert.throws(
      () =>
        compareResource({
          target: deploymentTarget(),
          live: deploymentLive(),
          ignoreDifferences: jq('.a |'),
        }),
      UsageError,
    );
  });
});

describe('ignoreDifferences: managedFieldsManagers', () => {
  it('fields owned by a trusted manager (an autoscaler owning replicas) are ignored', () => {
    const live = deploymentLive();
    const o = live as Any;
    o['spec']['replicas'] = 5;
    o['metadata']['managedFields'].push({
      manager: 'hpa-controller',
      operation: 'Update',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    const target = deploymentTarget();
    assert.equal(compareResource({ target, live }).status, 'OutOfSync');
    const rules: IgnoreDifference[] = [
      { group: 'apps', kind: 'Deployment', managedFieldsManagers: ['hpa-controller'] },
    ];
    assert.equal(compareResource({ target, live, ignoreDifferences: rules }).status, 'Synced');
  });

  it('a list element a trusted manager added (".") is removed whole, others stay compared', () => {
    const live = deploymentLive();
    podSpec(live)['containers'].push({ name: 'vault-agent', image: 'vault:1' });
    (live as Any)['metadata']['managedFields'].push({
      manager: 'vault-injector',
      operation: 'Update',
      fieldsV1: {
        'f:spec': {
          'f:template': {
            'f:spec': { 'f:containers': { 'k:{"name":"vault-agent"}': { '.': {}, 'f:image': {} } } },
          },
        },
      },
    });
    const target = deploymentTarget();
    podSpec(target)['containers'].push({ name: 'vault-agent', image: 'vault:2' });
    assert.equal(compareResource({ target, live }).status, 'OutOfSync');
    const rules: IgnoreDifference[] = [
      { group: 'apps', kind: 'Deployment', managedFieldsManagers: ['vault-injector'] },
    ];
    const r = compareResource({ target, live, ignoreDifferences: rules });
    assert.equal(r.status, 'Synced');
    assert.equal(JSON.stringify(r.normalizedLive).includes('vault'), false);
  });
});

describe('--ignore-differences-file', () => {
  it('reads a YAML list or a map with ignoreDifferences, same shape as the app spec', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ignore-'));
    try {
      const file = join(dir, 'ignore.yaml');
      await writeFile(
        file,
        [
          'ignoreDifferences:',
          '  - group: apps',
          '    kind: Deployment',
          '    jsonPointers: [/spec/replicas]',
          '    jqPathExpressions:',
          '      - .spec.template.spec.containers[] | select(.name == "web") | .image',
          '      - .metadata.annotations["team/owner"]',
        ].join('\n'),
      );
      const rules = await loadIgnoreDifferencesFile(file);
      assert.equal(status(rules), 'Synced');
      assert.deepEqual(parseIgnoreDifferences('- kind: "*"\n  jsonPointers: [/a]\n', 'x.yaml'), [
        { kind: '*', jsonPointers: ['/a'] },
      ]);
      await assert.rejects(
        loadIgnoreDifferencesFile(join(dir, 'nope.yaml')),
        /nope\.yaml: failed to read: no such file/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('bad entries are UsageErrors naming the file and the entry', () => {
    const bad: Array<[string, RegExp]> = [
      ['- group: apps\n', /: f\.yaml \(ignoreDifferences\[0\]\): failed to read rule: kind is required$/],
      ['- kind: Pod\n  jsonPointer: [/a]\n', /unknown field "jsonPointer"/],
      ['- kind: Pod\n  jsonPointers: /a\n', /jsonPointers must be a list of strings/],
      ['- kind: Pod\n  jsonPointers: [spec]\n', /must start with "\/"/],
      ['- kind: Pod\n  jqPathExpressions: [".a |"]\n', /jqPathExpression "\.a \|": failed to parse/],
      ['kind: [\n', /: f\.yaml: failed to parse YAML/],
      ['just text\n', /: f\.yaml: failed to read ignoreDifferences: expected a list$/],
    ];
    for (const [text, re] of bad) assert.throws(() => parseIgnoreDifferences(text, 'f.yaml'), re, text);
  });
});

describe('annotationIgnores (argocd.argoproj.io/ignore-differences, Argo CD 3.6)', () => {
  const obj = (value: string | undefined, namespace?: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      ...(namespace ? { namespace } : {}),
      ...(value === undefined ? {} : { annotations: { 'argocd.argoproj.io/ignore-differences': value } }),
    },
  });
  it('makes a rule for that resource alone from its jsonPointers; passes over what Argo CD passes over', () => {
    assert.deepEqual(annotationIgnores([obj('jsonPointers:\n- /spec/replicas\n', 'shop')]), [
      { group: 'apps', kind: 'Deployment', name: 'web', namespace: 'shop', jsonPointers: ['/spec/replicas'] },
    ]);
    for (const skipped of [
      undefined,
      '',
      'jsonPointers: []',
      'jqPathExpressions: [.spec]',
      '[unclosed',
      '- /spec',
    ])
      assert.deepEqual(annotationIgnores([obj(skipped)]), [], String(skipped));
  });
});
