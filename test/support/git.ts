/**
 * Real Git repositories for tests, built in temp dirs: write files, commit, branch, tag, move branches.
 * `url` is the `file://` URL the code under test fetches. Authors and dates are fixed, so runs are stable.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execProcess, which } from '../../src/source/exec.js';
import type { RenderTools } from '../../src/source/render/index.js';
import type { BuildFacts } from '../../src/source/render/types.js';
import type { Application } from '../../src/apps/index.js';
import { createSourceService, type SourceServiceOptions } from '../../src/source/index.js';
import { ToolPaths, type ToolPathOptions } from '../../src/source/tool-paths.js';

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
};

export function tempDir(prefix = 'kg-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export class TestRepo {
  readonly dir: string;

  constructor(dir = tempDir('kg-repo-')) {
    this.dir = dir;
    this.git('init', '-q', '-b', 'main');
  }

  get url(): string {
    return pathToFileURL(this.dir).href;
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, env: ENV, encoding: 'utf8' }).trim();
  }

  /** Writes files (path -> content; null deletes) and commits them; returns the new commit SHA. */
  commit(files: Record<string, string | null>, message = 'change'): string {
    for (const [path, content] of Object.entries(files)) {
      const full = join(this.dir, path);
      if (content === null) rmSync(full, { force: true, recursive: true });
      else {
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
    }
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.head();
  }

  head(ref = 'HEAD'): string {
    return this.git('rev-parse', ref);
  }

  branch(name: string, from = 'HEAD'): void {
    this.git('branch', '-f', name, from);
  }

  checkout(name: string): void {
    this.git('checkout', '-q', name);
  }

  tag(name: string, options: { annotated?: boolean; at?: string } = {}): void {
    const args = options.annotated ? ['tag', '-a', '-m', name, name] : ['tag', name];
    if (options.at) args.push(options.at);
    this.git(...args);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A manifest document for tests: kind + name (+ namespace), YAML. */
export function cm(name: string, extra = ''): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}data:\n  key: ${name}\n`;
}

/** An Application manifest (YAML) pointing at `url`/`path`. */
export function appYaml(
  name: string,
  url: string,
  path: string,
  extra: { revision?: string; namespace?: string; spec?: string; source?: string } = {},
): string {
  return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ${name}
spec:
  project: default
  source:
    repoURL: ${url}
    path: ${path}
    targetRevision: ${extra.revision ?? 'HEAD'}
${extra.source ?? ''}  destination:
    server: https://kubernetes.default.svc
    namespace: ${extra.namespace ?? 'default'}
${extra.spec ?? ''}`;
}

/**
 * Renderer tools for tests: real processes; `path` replaces PATH for tool lookup (a temp dir = no tools:
 * then the binaries `npm run tools` installs are not used either); `paths` names helm/kustomize binaries.
 */
export function tools(path?: string, paths: ToolPathOptions = {}): RenderTools {
  const found = new ToolPaths({ ...(path !== undefined ? { path, bundled: false } : {}), ...paths });
  const once = new Map<string, Promise<unknown>>();
  return {
    exec: execProcess,
    which: (t) => which(t, path),
    helm: (v) => found.helm(v),
    kustomize: (v) => found.kustomize(v),
    kustomizeBuildOptions: async () => (await found.kustomizeSettings())?.buildOptions ?? '',
    once: <T>(key: string, make: () => Promise<T>) => {
      if (!once.has(key)) once.set(key, make());
      return once.get(key) as Promise<T>;
    },
    tempDir: async (prefix) => mkdtempSync(join(tmpdir(), prefix)),
    timeoutMs: 60_000,
  };
}

/** A directory tree from path -> content. */
export function tree(files: Record<string, string>): string {
  const root = tempDir('kg-tree-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A render's build facts (RenderRequest.build): an app "app" of project "default", no cluster, unless given. */
export function build(facts: Partial<BuildFacts> = {}): BuildFacts {
  return {
    instanceName: 'app',
    project: 'default',
    revision: '',
    kubeVersion: '',
    apiVersions: [],
    ...facts,
  };
}

/** Renders `app` with a fresh source service (closed after): the render and the service's counters. */
export async function renderOnce(app: Application, options: SourceServiceOptions) {
  const service = createSourceService(options);
  try {
    const rendered = await service.renderApp(app);
    return { rendered, stats: service.stats };
  } finally {
    await service.close();
  }
}
