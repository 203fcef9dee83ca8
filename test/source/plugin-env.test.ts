import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { genericVersion } from '../../src/cluster/discovery.js';
import { buildEnv, envsubst as expand } from '../../src/source/render/env.js';
import { escapeParamName, parametersJson, pluginEnv } from '../../src/source/render/plugin-env.js';
import type { RenderRequest } from '../../src/source/render/types.js';

const SHA = '0d521c6e5a3b1e5f3cb2d8a8e4e9f0a1b2c3d4e5';

// The build environment and a plugin's environment are made from one request (render/env.ts, plugin-env.ts).
type Build = Pick<RenderRequest, 'destNamespace' | 'source' | 'build'>;
const BUILD: Build = {
  destNamespace: 'prod',
  source: {
    repoURL: 'https://github.com/argoproj/argocd-example-apps.git',
    path: 'plugins/kustomized-helm',
    targetRevision: 'HEAD',
  },
  build: {
    instanceName: 'team_web',
    project: 'apps',
    revision: SHA,
    kubeVersion: '1.28.4',
    apiVersions: ['v1', 'apps/v1', 'apps/v1/Deployment'],
  },
};
const envOf = (b: Build) => Object.entries(buildEnv(b));
const envsubst = (s: string, vars: ReadonlyMap<string, string>) => expand(s, Object.fromEntries(vars));

describe('plugin environment (Argo CD newEnv / getPluginEnvs)', () => {
  it('has the build environment in newEnv order, short revisions of 7 and 8 characters', () => {
    assert.deepEqual(envOf(BUILD), [
      ['ARGOCD_APP_NAME', 'team_web'],
      ['ARGOCD_APP_NAMESPACE', 'prod'],
      ['ARGOCD_APP_PROJECT_NAME', 'apps'],
      ['ARGOCD_APP_REVISION', SHA],
      ['ARGOCD_APP_REVISION_SHORT', '0d521c6'],
      ['ARGOCD_APP_REVISION_SHORT_8', '0d521c6e'],
      ['ARGOCD_APP_SOURCE_REPO_URL', 'https://github.com/argoproj/argocd-example-apps.git'],
      ['ARGOCD_APP_SOURCE_PATH', 'plugins/kustomized-helm'],
      ['ARGOCD_APP_SOURCE_TARGET_REVISION', 'HEAD'],
    ]);
    // A revision shorter than 7 characters ("local") is kept whole.
    assert.equal(
      new Map(envOf({ ...BUILD, build: { ...BUILD.build, revision: 'local' } })).get(
        'ARGOCD_APP_REVISION_SHORT_8',
      ),
      'local',
    );
  });

  it('without a plugin block: KUBE_VERSION and KUBE_API_VERSIONS, no ARGOCD_APP_PARAMETERS', () => {
    const env = new Map(pluginEnv(BUILD, undefined));
    assert.equal(env.get('KUBE_VERSION'), '1.28.4');
    assert.equal(env.get('KUBE_API_VERSIONS'), 'v1,apps/v1,apps/v1/Deployment');
    assert.equal(env.has('ARGOCD_APP_PARAMETERS'), false);
  });

  it('prefixes plugin.env with ARGOCD_ENV_ and expands the build environment only ($$ is a dollar)', () => {
    const env = pluginEnv(BUILD, {
      name: '',
      env: [
        { name: 'FOO', value: 'bar' },
        { name: 'REV', value: 'test-$ARGOCD_APP_REVISION_SHORT' },
        { name: 'BRACES', value: '${ARGOCD_APP_NAMESPACE}-${KUBE_VERSION}' },
        { name: 'HOME_NOT_READ', value: '$HOME|$PATH' },
        { name: 'DOLLAR', value: 'a$$b$' },
      ],
      parameters: [],
    });
    const m = new Map(env);
    assert.equal(m.get('ARGOCD_ENV_FOO'), 'bar');
    assert.equal(m.get('ARGOCD_ENV_REV'), 'test-0d521c6');
    assert.equal(m.get('ARGOCD_ENV_BRACES'), 'prod-1.28.4');
    assert.equal(m.get('ARGOCD_ENV_HOME_NOT_READ'), '|');
    assert.equal(m.get('ARGOCD_ENV_DOLLAR'), 'a$b$');
    assert.equal(m.get('ARGOCD_APP_PARAMETERS'), 'null');
  });

  it('expands as Go os.Expand does, odd syntax included', () => {
    const vars = new Map([
      ['A', 'x'],
      ['A_B', 'y'],
    ]);
    for (const [input, want] of [
      ['$A', 'x'],
      ['$A_B-$A.b', 'y-x.b'],
      ['${A}_B', 'x_B'],
      ['${}', ''], // bad syntax: eaten
      ['${A', 'A'], // no closing brace: "${" eaten
      ['$%', '$%'], // not a name: the dollar stays
      ['$1$*', ''], // special one-character names: empty
      ['${$}', '$'],
      ['no dollars', 'no dollars'],
    ] as const)
      assert.equal(envsubst(input, vars), want, input);
  });

  it('escapes parameter names as Argo CD: upper case, anything outside [A-Z0-9_] is "_"', () => {
    assert.equal(escapeParamName('some-string-param'), 'SOME_STRING_PARAM');
    assert.equal(escapeParamName('image.tag'), 'IMAGE_TAG');
    assert.equal(escapeParamName('a b/c:9_z'), 'A_B_C_9_Z');
    // Go upper-cases rune by rune: "ı" becomes "I", "ß" has no one-letter upper case, "é" is no ASCII.
    assert.equal(escapeParamName('ıßé'), 'I__');
  });

  it('writes ARGOCD_APP_PARAMETERS as Go encoding/json and one PARAM_ variable per value', () => {
    const env = pluginEnv(BUILD, {
      name: 'kh',
      env: [],
      parameters: [
        { name: 'values-files', array: ['values-dev.yaml', 'b.yaml'] },
        { name: 'helm-parameters', map: { 'image.tag': 'v1.2.3', 'a<b': '&' } },
        { name: 'some-string-param', string: 'some-string-value' },
        { name: 'empty', map: {}, array: [] },
      ],
    });
    const m = new Map(env);
    assert.equal(
      m.get('ARGOCD_APP_PARAMETERS'),
      '[{"array":["values-dev.yaml","b.yaml"],"name":"values-files"},' +
        '{"map":{"a\\u003cb":"\\u0026","image.tag":"v1.2.3"},"name":"helm-parameters"},' +
        '{"name":"some-string-param","string":"some-string-value"},' +
        '{"array":[],"map":{},"name":"empty"}]',
    );
    assert.deepEqual(
      env.filter(([k]) => k.startsWith('PARAM_')),
      [
        ['PARAM_VALUES_FILES_0', 'values-dev.yaml'],
        ['PARAM_VALUES_FILES_1', 'b.yaml'],
        ['PARAM_HELM_PARAMETERS_A_B', '&'],
        ['PARAM_HELM_PARAMETERS_IMAGE_TAG', 'v1.2.3'],
        ['PARAM_SOME_STRING_PARAM', 'some-string-value'],
      ],
    );
    assert.equal(parametersJson([]), 'null');
  });

  it('KUBE_VERSION is the server gitVersion as ParseGeneric prints it', () => {
    assert.equal(genericVersion('v1.28.4'), '1.28.4');
    assert.equal(genericVersion('v1.30.2+k3s1'), '1.30.2');
    assert.equal(genericVersion('v1.29.1-gke.1589018'), '1.29.1');
    assert.equal(genericVersion('v1.32.0+embedded'), '1.32.0');
    assert.equal(genericVersion('garbage'), '');
  });
});
