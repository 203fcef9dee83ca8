/**
 * A cluster Secret's `config` read as Go's json.Unmarshal reads it into Argo CD's ClusterConfig
 * (src/cluster/cluster-config.ts): whether it fails decides whether Argo CD keeps the cluster, and so
 * every shard. Expected answers follow encoding/json's documented rules (case-insensitive field match,
 * []byte as padded standard base64, null semantics), which Argo CD's secretToCluster relies on.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseClusterConfig } from '../../src/cluster/cluster-config.js';

const parse = (config: unknown) => parseClusterConfig(JSON.stringify(config));

describe('cluster config (Go json.Unmarshal into ClusterConfig)', () => {
  test('empty, null and unknown fields are the zero config; other JSON values are errors', () => {
    const zero = { tlsClientConfig: { insecure: false } };
    assert.deepEqual(parseClusterConfig(undefined), zero);
    assert.deepEqual(parseClusterConfig(''), zero);
    assert.deepEqual(parseClusterConfig('null'), zero);
    assert.deepEqual(parse({ future: { x: 1 }, tlsClientConfig: { alsoFuture: true } }), zero);
    assert.throws(() => parseClusterConfig(' '), /config is not valid JSON/);
    assert.throws(() => parseClusterConfig('[]'), /config is not a JSON object/);
    assert.throws(() => parseClusterConfig('"x"'), /config is not a JSON object/);
  });

  test('keys match fields case-insensitively, so a wrongly typed "Insecure" is an error', () => {
    assert.deepEqual(parse({ BearerToken: 't', TLSCLIENTCONFIG: { Insecure: true } }), {
      bearerToken: 't',
      tlsClientConfig: { insecure: true },
    });
    assert.throws(
      () => parse({ TLSClientConfig: { Insecure: 'true' } }),
      /config\.tlsClientConfig\.insecure is not a boolean/,
    );
    // An exact match and a folded one are the same field: the later value wins.
    assert.equal(parse({ bearerToken: 'a', BEARERTOKEN: 'b' }).bearerToken, 'b');
    // Characters that only fold through Unicode rules Go does not use stay distinct ("ß" is not "SS").
    assert.equal(parse({ paßword: 'x' }).password, undefined);
  });

  test('objects given twice merge; null clears a pointer struct and a list, not a string', () => {
    const c = parse({
      tlsClientConfig: { insecure: true },
      TlsClientConfig: { serverName: 'api.example' },
      awsAuthConfig: { clusterName: 'eks' },
      AwsAuthConfig: null,
      execProviderConfig: { command: 'x', args: ['a', null] },
      username: 'u',
      Username: null,
    });
    assert.deepEqual(c.tlsClientConfig, { insecure: true, serverName: 'api.example' });
    assert.equal(c.awsAuthConfig, undefined);
    assert.deepEqual(c.execProviderConfig, { command: 'x', args: ['a', ''] });
    assert.equal(c.username, 'u');
    // A type error in an object a later null cleared is still an error.
    assert.throws(
      () => parse({ awsAuthConfig: { clusterName: 1 }, AWSAuthConfig: null }),
      /config\.awsAuthConfig\.clusterName is not a string/,
    );
  });

  test('[]byte fields are padded standard base64; newlines ignored', () => {
    assert.equal(parse({ tlsClientConfig: { caData: 'YWJj' } }).tlsClientConfig.caData, 'YWJj');
    assert.equal(parse({ tlsClientConfig: { caData: 'YW\nJj' } }).tlsClientConfig.caData, 'YWJj');
    assert.equal(parse({ tlsClientConfig: { caData: 'YQ==' } }).tlsClientConfig.caData, 'YQ==');
    for (const bad of ['abc', 'YQ', 'Y===', 'YW=j', 'not base64!'])
      assert.throws(
        () => parse({ tlsClientConfig: { caData: bad } }),
        /config\.tlsClientConfig\.caData is not base64/,
        bad,
      );
  });

  test('wrong types anywhere are errors naming the field, never the value', () => {
    const cases: [unknown, RegExp][] = [
      [{ bearerToken: 42 }, /config\.bearerToken is not a string/],
      [{ tlsClientConfig: 'x' }, /config\.tlsClientConfig is not an object/],
      [{ execProviderConfig: { env: { A: 1 } } }, /config\.execProviderConfig\.env is not a map of strings/],
      [{ execProviderConfig: { args: 'a' } }, /config\.execProviderConfig\.args is not a list of strings/],
      [{ disableCompression: 'yes' }, /config\.disableCompression is not a boolean/],
    ];
    for (const [config, error] of cases) {
      assert.throws(
        () => parse(config),
        (err: Error) => error.test(err.message) && !/42|"x"/.test(err.message),
      );
    }
    // RawExtension takes any JSON; env null values are "".
    const e = parse({ execProviderConfig: { config: [1, 'two'], env: { A: null } } }).execProviderConfig!;
    assert.deepEqual(e, { config: [1, 'two'], env: { A: '' } });
  });
});
