/**
 * A private Git server on loopback for credential tests (and, anonymous, the conformance rig's): a node HTTP server that checks the Authorization
 * header (Basic user:password, or Bearer token) and runs the real `git http-backend` as a CGI program
 * (/usr/lib/git-core/git-http-backend, or `git --exec-path`), serving the repositories under `root`.
 * A request without valid credentials gets 401 with `WWW-Authenticate: Basic`, as a real server does, so
 * git asks its askpass; every Authorization header seen is recorded in `seen` (tests check what git sent).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface GitHttpAuth {
  username?: string;
  password?: string;
  bearer?: string;
}

function backendPath(): string {
  const standard = '/usr/lib/git-core/git-http-backend';
  if (existsSync(standard)) return standard;
  return join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');
}

function authorized(header: string | undefined, auth: GitHttpAuth | 'anonymous'): boolean {
  if (auth === 'anonymous') return true;
  if (!header) return false;
  if (auth.bearer !== undefined && header === `Bearer ${auth.bearer}`) return true;
  if (auth.password !== undefined && header.startsWith('Basic ')) {
    const [user, ...rest] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    return user === (auth.username ?? user) && rest.join(':') === auth.password;
  }
  return false;
}

export class GitHttpServer {
  readonly seen: string[] = [];
  requests = 0;
  private server: Server | undefined;
  private port = 0;

  constructor(
    /** Directory holding the served repositories (`<root>/<name>/.git` or bare `<root>/<name>.git`). */
    readonly root: string,
    /** Credentials every request must carry, or 'anonymous' (the conformance rig's server). */
    readonly auth: GitHttpAuth | 'anonymous',
  ) {}

  /** `http://127.0.0.1:<port>/<path>`. */
  url(path: string): string {
    return `http://127.0.0.1:${this.port}/${path.replace(/^\//, '')}`;
  }

  async start(port = 0): Promise<void> {
    const backend = backendPath();
    this.server = createServer((req, res) => this.handle(backend, req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  private handle(backend: string, req: IncomingMessage, res: ServerResponse): void {
    this.requests++;
    const header = req.headers.authorization;
    if (header) this.seen.push(header);
    if (!authorized(header, this.auth)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"', 'Content-Type': 'text/plain' });
      res.end('unauthorized\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const child = spawn(backend, [], {
      env: {
        PATH: process.env['PATH'] ?? '',
        GIT_PROJECT_ROOT: this.root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_USER: 'test',
        REMOTE_ADDR: '127.0.0.1',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    req.pipe(child.stdin);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.resume();
    child.on('close', () => {
      const out = Buffer.concat(chunks);
      const split = out.indexOf('\r\n\r\n');
      const sep = split >= 0 ? 4 : 2;
      const end = split >= 0 ? split : out.indexOf('\n\n');
      if (end < 0) {
        res.writeHead(500);
        res.end();
        return;
      }
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of out.subarray(0, end).toString('utf8').split(/\r?\n/)) {
        const i = line.indexOf(':');
        if (i < 0) continue;
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.end(out.subarray(end + sep));
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
