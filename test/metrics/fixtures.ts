/** Shared builders of the metrics tests: Applications (parsed as the loader does), loop states, a fake loop. */
import { parseApplication } from '../../src/apps/index.js';
import type { Application } from '../../src/apps/index.js';
import type { AppLoopState } from '../../src/controller/index.js';
import type { MetricsOptions } from '../../src/metrics/index.js';

export function app(
  name: string,
  spec: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
): Application {
  return parseApplication(
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name, namespace: 'argocd', ...metadata },
      spec: {
        project: 'team',
        source: { repoURL: 'https://github.com/Example/Repo.git', path: 'apps', targetRevision: 'HEAD' },
        destination: { server: 'https://kubernetes.default.svc', namespace: 'prod' },
        ...spec,
      },
    },
    'test',
  );
}

export function state(a: Application, extra: Partial<AppLoopState> = {}): AppLoopState {
  return { key: `${a.namespace ?? 'argocd'}/${a.name}`, app: a, selfHealAttempts: 0, ...extra };
}

export function fakeLoop(): {
  apps: Map<string, AppLoopState>;
  loop: MetricsOptions['loop'];
} {
  const apps = new Map<string, AppLoopState>();
  return { apps, loop: { states: () => [...apps.values()], state: (k) => apps.get(k) } };
}
