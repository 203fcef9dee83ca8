/** runSettings (commands/flags.ts): where argocd-cm comes from, and the tracking flags winning over it. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runSettings } from '../../src/commands/flags.js';
import { tempDir } from '../support/git.js';

describe('runSettings', () => {
  const dir = tempDir('kg-run-settings-');
  const file = join(dir, 'argocd-cm.yaml');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: argocd-cm}',
      'data:',
      '  application.resourceTrackingMethod: label',
      '  application.instanceLabelKey: team.example.com/app',
      '  resource.customizations.knownTypeFields.apps_Deployment: "- field: spec.x\\n  type: cpu"',
    ].join('\n'),
  );

  it('no argocd-cm and no flags: Argo CD defaults, no settings', async () => {
    const r = await runSettings({}, () => assert.fail('no warning expected'));
    assert.deepEqual(r, { trackingMethod: 'annotation', instanceLabelKey: 'app.kubernetes.io/instance' });
  });

  it('--argocd-cm: its tracking keys apply, its warnings are passed on', async () => {
    const warnings: string[] = [];
    const r = await runSettings({ 'argocd-cm': file }, (m) => warnings.push(m));
    assert.equal(r.trackingMethod, 'label');
    assert.equal(r.instanceLabelKey, 'team.example.com/app');
    assert.equal(r.settings?.origin, `file ${file}`);
    assert.deepEqual(warnings, [
      `file ${file}: resource.customizations.knownTypeFields.apps_Deployment: type 'cpu' is not supported (field spec.x is not normalized)`,
    ]);
  });

  it('the tracking flags win over argocd-cm', async () => {
    const r = await runSettings(
      { 'argocd-cm': file, 'tracking-method': 'annotation+label', 'instance-label-key': 'mine' },
      () => undefined,
    );
    assert.equal(r.trackingMethod, 'annotation+label');
    assert.equal(r.instanceLabelKey, 'mine');
  });

  it('--argocd-cm - with -f - is a usage error: one standard input', async () => {
    await assert.rejects(
      runSettings({ 'argocd-cm': '-', 'app-file': ['-'] }, () => undefined),
      /^Error: --argocd-cm -: failed to read: standard input is already read by -f -$|--argocd-cm -: failed to read: standard input is already read by -f -/,
    );
  });
});
