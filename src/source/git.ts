// Over 400 lines: one class, GitRepos (mirrors, fetch, checkout leases); other work edits src/source this round, so it was not split in issue 33.
/**
 * Git sources through the real `git` CLI, so credentials come from git's own configuration (credential
 * helpers, SSH agent, ~/.gitconfig) and never pass through this program.
 *
 * Layout: one bare mirror per repository under `<cacheDir>/<repoDirName(url)>.git` (the directory name is
 * derived from the URL *without* userinfo; the URL itself is never stored in the mirror's config: every
 * fetch names it on the command line). Checkouts go to `<workDir>/<repo>/<sha>`, one per resolved commit
 * per run, written with a private index so the mirror is never modified except by fetch.
 *
 * Guarantees (per `GitRepos` instance = per run):
 * - `resolveRevision` resolves like Argo CD: a full SHA (40 or 64 hex) is used as is; "" means HEAD; HEAD,
 *   branch and tag names (short or full `refs/...`; annotated tags peeled) are looked up in ONE
 *   `git ls-remote` per repository, shared by all callers; a truncated SHA is resolved in the mirror after
 *   a fetch; anything else is a `RevisionNotFoundError` naming repository and revision.
 * - A repository on this machine (`file://` URL or absolute path): HEAD and branches are read from its ref
 *   files (local-refs.ts), the same answer ls-remote gives, with no process; once per name per run.
 *   Tags, short SHAs and anything the reader is unsure of still go through ls-remote.
 * - `forgetRefs(url)` ends the "once" for one repository: its next resolution and fetch ask the remote again.
 * - Checkouts: `checkout` keeps the tree for the instance's life (its caller holds the path); `lease` lends
 *   one until `release()`. Per repository, at most `MAX_IDLE_CHECKOUTS` trees no lease holds are kept
 *   (the least recently used beyond that are removed from disk), so a continuous loop that sees commit
 *   after commit for days does not keep a full tree of each (it did: one directory per commit, found
 *   while soaking the loop, bench/soak.bench.ts). A removed commit asked again is checked out again.
 * - A repository is fetched at most once (concurrent callers wait on the same fetch), and only when a
 *   needed commit is missing from the mirror. A commit still missing after the fetch is fetched by SHA.
 * - Credentials (`RepoAuth`, from repository Secrets: git-auth.ts) reach git through its environment only,
 *   for the commands that talk to the remote (ls-remote, fetch); refs and fetches are remembered per
 *   (repository, credentials) so an app never rides on another project's credentials, and fetches into
 *   one mirror run one at a time.
 * - A long-running loop's poller asks `listRefs`: a fresh ls-remote each time, never cached.
 * - Messages never contain credentials: URLs are redacted (`redactURL`) and every secret value of the
 *   credentials in use is scrubbed from git's stderr; "terminal prompts disabled" (git found no
 *   credential) becomes "authentication required: no credentials matched this URL" (Argo CD's
 *   humanizeAuthPromptError).
 * - The mirror's config holds no URL and no credential (no remote is configured); mirrors are created
 *   with `--shared=0600` (owner-only files).
 */
import { exists } from '../util/fs.js';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { GitopsError, oneLine } from '../common/index.js';
import { execProcess, type Exec, type ExecOptions } from './exec.js';
import { scrub, type GitEnv } from './git-auth.js';
import { resolveLocalBranch } from './local-refs.js';
import { TreeIndex } from './git-tree.js';
import { redactURL, repoDirName } from './url.js';

export const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;
const SHORT_SHA = /^[0-9a-f]{7,63}$/i;

export interface GitReposOptions {
  /** Where mirrors live (persistent): `<cache>/kubectl-gitops/git`. */
  cacheDir: string;
  /** Where checkouts go (removed by the caller at the end of the run). */
  workDir: string;
  exec?: Exec;
  /** Timeout of one git process (default 5 min: fetches of big repositories are slow). */
  timeoutMs?: number;
  signal?: AbortSignal;
  git?: string;
}

export interface GitStats {
  /** git processes spawned. */
  processes: number;
  /** Fetches per repository (redacted URL). */
  fetches: Record<string, number>;
  lsRemotes: number;
  /** Revisions answered from a local repository's ref files (no process). */
  localRefReads: number;
}

export class RevisionNotFoundError extends GitopsError {
  constructor(
    readonly repoURL: string,
    readonly revision: string,
  ) {
    super(`failed to resolve revision "${revision}": no such branch, tag or commit in ${redactURL(repoURL)}`);
    this.name = 'RevisionNotFoundError';
  }
}

/** The credentials of one repository for git: `id` tells credentials apart (no secret in it). */
export interface RepoAuth {
  id: string;
  environ(): Promise<GitEnv>;
}

/**
 * The SHA `revision` (not a SHA, not "") names among `refs` (an ls-remote answer), as Argo CD resolves a
 * symbolic revision: a full `refs/...` name (peeled first), else the name itself (HEAD), a branch, a tag
 * (peeled first).
 */
export function refOf(refs: ReadonlyMap<string, string>, revision: string): string | undefined {
  const rev = revision.trim() || 'HEAD';
  const candidates = rev.startsWith('refs/')
    ? [`${rev}^{}`, rev]
    : [rev, `refs/heads/${rev}`, `refs/tags/${rev}^{}`, `refs/tags/${rev}`];
  for (const name of candidates) {
    const sha = refs.get(name);
    if (sha) return sha;
  }
  return undefined;
}

const NO_AUTH: RepoAuth = { id: '', environ: () => Promise.resolve({ env: {}, secrets: [] }) };

interface RepoState {
  url: string;
  mirror: string;
  /** ls-remote results per credentials id. */
  refs: Map<string, Promise<Map<string, string>>>;
  /** Fetches per credentials id. */
  fetches: Map<string, Promise<void>>;
  /** The tail of the chain of fetches into this mirror (one at a time). */
  lock: Promise<unknown>;
  /** Revisions read from a local repository's ref files this run (one answer per name per run). */
  localRefs: Map<string, string | undefined>;
  fetched: boolean;
  checkouts: Map<string, Checkout>;
  /** Trees being removed, by commit: a new checkout of the same commit waits for its removal. */
  removals: Map<string, Promise<void>>;
  /** Tree listings read, by commit (the last `MAX_TREES`). */
  trees: Map<string, Promise<TreeIndex>>;
}

/** Tree listings kept per repository (a continuous loop sees commit after commit). */
const MAX_TREES = 4;

interface Checkout {
  dir: Promise<string>;
  /** Leases not yet released. */
  leases: number;
  /** Given out by `checkout` (held by its caller for good): never removed. */
  pinned: boolean;
  /** When it was last leased (a counter). */
  used: number;
}

/** Checkouts no lease holds kept per repository (the least recently used beyond are removed). */
export const MAX_IDLE_CHECKOUTS = 8;

/** A checkout lent by `GitRepos.lease`; `release()` (idempotent) lets it be removed. */
export interface CheckoutLease {
  dir: string;
  release(): void;
}

export class GitRepos {
  readonly stats: GitStats = { processes: 0, fetches: {}, lsRemotes: 0, localRefReads: 0 };
  private readonly repos = new Map<string, RepoState>();
  private leaseCount = 0;
  private readonly names = new Map<string, string>();
  private readonly exec: Exec;
  private readonly git: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: GitReposOptions) {
    this.exec = options.exec ?? execProcess;
    this.git = options.git ?? 'git';
    this.timeoutMs = options.timeoutMs ?? 300_000;
  }

  /** The commit SHA `revision` names in `url` right now. */
  async resolveRevision(url: string, revision: string, auth: RepoAuth = NO_AUTH): Promise<string> {
    const rev = revision.trim() || 'HEAD';
    if (FULL_SHA.test(rev)) return rev.toLowerCase();
    const repo = this.repo(url);
    if (!repo.localRefs.has(rev)) {
      const local = resolveLocalBranch(url, rev);
      if (local) this.stats.localRefReads++;
      repo.localRefs.set(rev, local);
    }
    const local = repo.localRefs.get(rev);
    if (local) return local;
    let pending = repo.refs.get(auth.id);
    if (!pending) {
      pending = this.lsRemote(repo, auth);
      repo.refs.set(auth.id, pending);
    }
    const sha = refOf(await pending, rev);
    if (sha) return sha;
    if (SHORT_SHA.test(rev)) {
      await this.fetchOnce(repo, auth);
      const out = await this.run(
        ['--git-dir', repo.mirror, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`],
        {
          allowFailure: true,
        },
      );
      if (out && FULL_SHA.test(out.trim())) return out.trim();
    }
    throw new RevisionNotFoundError(url, rev);
  }

  /**
   * The refs of `url` right now (ref name -> SHA, annotated tags also as `<tag>^{}`): one fresh
   * `git ls-remote`, never cached, with the same credentials and message scrubbing as every other remote
   * command (the Git poller, poller.ts).
   */
  listRefs(url: string, auth: RepoAuth = NO_AUTH): Promise<Map<string, string>> {
    return this.lsRemote(this.repo(url), auth);
  }

  /**
   * Forgets the refs read of `url` (ls-remote answers, local branch reads) and that its mirror was
   * fetched: the next `resolveRevision` asks again, the next missing commit fetches again. Resolutions in
   * flight finish with the answer they started with.
   */
  forgetRefs(url: string): void {
    const repo = this.repos.get(repoDirName(url));
    if (!repo) return;
    repo.refs.clear();
    repo.localRefs.clear();
    repo.fetches.clear();
    repo.fetched = false;
  }

  /** A directory holding the tree of commit `sha` (shared by every caller asking for the same commit). */
  checkout(url: string, sha: string, auth: RepoAuth = NO_AUTH): Promise<string> {
    const c = this.entry(this.repo(url), sha, auth);
    c.pinned = true;
    return c.dir;
  }

  /** `checkout`, lent until `release()`: then it may be removed (see the header). */
  async lease(url: string, sha: string, auth: RepoAuth = NO_AUTH): Promise<CheckoutLease> {
    const repo = this.repo(url);
    const c = this.entry(repo, sha, auth);
    c.leases++;
    c.used = ++this.leaseCount;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      c.leases--;
      this.prune(repo);
    };
    try {
      return { dir: await c.dir, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  /**
   * The tree of commit `sha` (git-tree.ts): one `git ls-tree` of the mirror per commit, fetched first when
   * the mirror lacks it, with no checkout. The last few commits' trees are kept per repository.
   */
  tree(url: string, sha: string, auth: RepoAuth = NO_AUTH): Promise<TreeIndex> {
    const repo = this.repo(url);
    let tree = repo.trees.get(sha);
    if (!tree) {
      tree = (async () => {
        const args = ['--git-dir', repo.mirror, 'ls-tree', '-r', '-t', '-z', '--full-tree', sha];
        // One process when the mirror has the commit (a second run at a commit): no check first.
        const exists = await this.run(args, { allowFailure: true });
        if (exists !== undefined) return new TreeIndex(exists);
        await this.fetchOnce(repo, auth);
        let out = await this.run(args, { allowFailure: true });
        if (out === undefined) {
          // Not on any fetched branch or tag: ask for the commit itself, as a checkout does.
          await this.serial(repo, () =>
            this.run(['--git-dir', repo.mirror, 'fetch', '--quiet', '--', repo.url, sha], {
              allowFailure: true,
              auth,
            }),
          );
          out = await this.run(args, { allowFailure: true });
          if (out === undefined) throw new RevisionNotFoundError(repo.url, sha);
        }
        return new TreeIndex(out);
      })();
      repo.trees.set(sha, tree);
      tree.catch(() => repo.trees.delete(sha));
      if (repo.trees.size > MAX_TREES) repo.trees.delete(repo.trees.keys().next().value!);
    }
    return tree;
  }

  /** The content of blob `oid` of a commit whose `tree` was read (the mirror holds it then). */
  async blob(url: string, oid: string): Promise<string> {
    const out = await this.run(['--git-dir', this.repo(url).mirror, 'cat-file', 'blob', oid], {
      verb: `read object ${oid} of`,
      url,
    });
    return out!;
  }

  /** Paths of the checkouts on disk now, per repository (tests). */
  checkoutCount(url: string): number {
    return this.repos.get(repoDirName(url))?.checkouts.size ?? 0;
  }

  private entry(repo: RepoState, sha: string, auth: RepoAuth): Checkout {
    let c = repo.checkouts.get(sha);
    if (!c) {
      const removal = repo.removals.get(sha);
      const dir = removal
        ? removal.then(() => this.doCheckout(repo, sha, auth))
        : this.doCheckout(repo, sha, auth);
      c = { dir, leases: 0, pinned: false, used: 0 };
      repo.checkouts.set(sha, c);
    }
    return c;
  }

  /** Removes the least recently leased idle checkouts beyond `MAX_IDLE_CHECKOUTS`. */
  private prune(repo: RepoState): void {
    const idle = [...repo.checkouts].filter(([, c]) => c.leases === 0 && !c.pinned);
    if (idle.length <= MAX_IDLE_CHECKOUTS) return;
    idle.sort(([, a], [, b]) => a.used - b.used);
    for (const [sha, c] of idle.slice(0, idle.length - MAX_IDLE_CHECKOUTS)) {
      repo.checkouts.delete(sha);
      const removal = c.dir
        .then((dir) => rm(dir, { recursive: true, force: true }))
        .catch(() => undefined)
        .finally(() => {
          if (repo.removals.get(sha) === removal) repo.removals.delete(sha);
        });
      repo.removals.set(sha, removal);
    }
  }

  private repo(url: string): RepoState {
    if (url.startsWith('-')) throw new GitopsError('failed to use repository: URL must not start with "-"');
    // Asked per render: the name (a sha256 of the normalised URL) is worked out once per URL.
    let name = this.names.get(url);
    if (name === undefined) {
      name = repoDirName(url);
      this.names.set(url, name);
    }
    let repo = this.repos.get(name);
    if (!repo) {
      repo = {
        url,
        mirror: join(this.options.cacheDir, `${name}.git`),
        refs: new Map(),
        fetches: new Map(),
        lock: Promise.resolve(),
        fetched: false,
        localRefs: new Map(),
        checkouts: new Map(),
        removals: new Map(),
        trees: new Map(),
      };
      this.repos.set(name, repo);
    }
    return repo;
  }

  private async lsRemote(repo: RepoState, auth: RepoAuth): Promise<Map<string, string>> {
    this.stats.lsRemotes++;
    const out = (await this.run(['ls-remote', '--', repo.url], {
      verb: 'list the refs of',
      url: repo.url,
      auth,
    }))!;
    const refs = new Map<string, string>();
    for (const line of out.split('\n')) {
      const [sha, name] = line.split('\t');
      if (sha && name) refs.set(name.trim(), sha.trim());
    }
    return refs;
  }

  /** Runs `task` after every fetch into `repo`'s mirror started before it. */
  private serial<T>(repo: RepoState, task: () => Promise<T>): Promise<T> {
    const next = repo.lock.then(task, task);
    repo.lock = next.catch(() => undefined);
    return next;
  }

  private fetchOnce(repo: RepoState, auth: RepoAuth): Promise<void> {
    let pending = repo.fetches.get(auth.id);
    if (pending) return pending;
    pending = this.serial(repo, async () => {
      if (!(await exists(join(repo.mirror, 'HEAD')))) {
        await mkdir(this.options.cacheDir, { recursive: true, mode: 0o700 });
        await this.run(['init', '--bare', '--quiet', '--shared=0600', repo.mirror]);
      }
      const key = redactURL(repo.url);
      this.stats.fetches[key] = (this.stats.fetches[key] ?? 0) + 1;
      await this.run(
        [
          '--git-dir',
          repo.mirror,
          'fetch',
          '--quiet',
          '--prune',
          '--force',
          '--no-tags',
          '--',
          repo.url,
        ].concat(['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']),
        { verb: 'fetch', url: repo.url, auth },
      );
      repo.fetched = true;
    });
    repo.fetches.set(auth.id, pending);
    return pending;
  }

  private async hasCommit(repo: RepoState, sha: string): Promise<boolean> {
    if (!(await exists(join(repo.mirror, 'HEAD')))) return false;
    const out = await this.run(['--git-dir', repo.mirror, 'cat-file', '-e', `${sha}^{commit}`], {
      allowFailure: true,
    });
    return out !== undefined;
  }

  private async doCheckout(repo: RepoState, sha: string, auth: RepoAuth): Promise<string> {
    if (!repo.fetched && !(await this.hasCommit(repo, sha))) await this.fetchOnce(repo, auth);
    const dir = join(this.options.workDir, repoDirName(repo.url), sha);
    await mkdir(dir, { recursive: true });
    const args = [
      '--git-dir',
      repo.mirror,
      '--work-tree',
      dir,
      'checkout',
      '--quiet',
      '--force',
      sha,
      '--',
      '.',
    ];
    const env = { GIT_INDEX_FILE: `${dir}.index` };
    try {
      const ok = await this.run(args, { env, allowFailure: true });
      if (ok !== undefined) return dir;
      // Not on any fetched branch or tag (e.g. a commit only reachable from a pull-request ref): ask for it.
      const fetched = await this.serial(repo, () =>
        this.run(['--git-dir', repo.mirror, 'fetch', '--quiet', '--', repo.url, sha], {
          allowFailure: true,
          auth,
        }),
      );
      if (fetched === undefined) throw new RevisionNotFoundError(repo.url, sha);
      await this.run(args, { env, verb: `check out ${sha} of`, url: repo.url });
      return dir;
    } finally {
      await rm(`${dir}.index`, { force: true });
    }
  }

  /** Runs git; returns stdout, or undefined on failure when `allowFailure`. */
  private async run(
    args: string[],
    opts: {
      allowFailure?: boolean;
      verb?: string;
      url?: string;
      env?: Record<string, string>;
      auth?: RepoAuth;
    } = {},
  ): Promise<string | undefined> {
    const what = `${opts.verb ?? 'run git on'}${opts.url ? ` ${redactURL(opts.url)}` : ''}`.trim();
    let creds: GitEnv = { env: {}, secrets: [] };
    if (opts.auth) {
      try {
        creds = await opts.auth.environ();
      } catch (err) {
        // The credentials could not be prepared (GitHub App token, temp files): name the repository.
        throw new GitopsError(`failed to ${what}: ${oneLine(err)}`);
      }
    }
    this.stats.processes++;
    const env = { ...opts.env, ...creds.env };
    const execOptions: ExecOptions = {
      timeoutMs: this.timeoutMs,
      ...(Object.keys(env).length ? { env } : {}),
    };
    if (this.options.signal) execOptions.signal = this.options.signal;
    try {
      return (await this.exec(this.git, args, execOptions)).stdout;
    } catch (err) {
      if (opts.allowFailure) return undefined;
      let why = scrub(oneLine(err), creds.secrets);
      if (why.includes('terminal prompts disabled'))
        why = `authentication required: no credentials matched this URL (${why})`;
      // The cause keeps git's raw stderr, which may echo secrets: it is not chained.
      throw new GitopsError(`failed to ${what}: ${why}`);
    }
  }
}
