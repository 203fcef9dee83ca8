/**
 * `npm run conformance -- <verb>`: the conformance rig (docs/conformance.md).
 *   build                  build the oracles from the Go module proxy (skipped when current)
 *   up                     build what is missing, start the rig on loopback, write conformance/.work/rig.json
 *   up --kube-only         the same with Kubernetes alone (kube-apiserver, kube-controller-manager, kubelet stand-in)
 *   up --kube-only --no-audit   the same without the API server's audit log (benchmarks: what a user's cluster costs)
 *   smoke                  the end-to-end check of a rig that is up
 *   status                 what runs (exit 1 when the rig is not fully up)
 *   controller stop|start  stop or start Argo CD's application controller alone
 *   down                   stop everything the rig started
 *   run (or no verb)       the corpus runner, conformance/compare/run.ts, with the remaining arguments
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAll } from './rig/build.js';
import { CONFORMANCE_DIR, RIG_JSON } from './rig/paths.js';
import {
  isRunning,
  readState,
  startProcess,
  stopProcess,
  waitUntil,
  portOpen,
  type ProcSpec,
} from './rig/procs.js';
import { smoke } from './rig/smoke.js';
import { CONTROLLER, PROCESS_ORDER, down, up } from './rig/up.js';

const say = (line: string): void => console.log(`conformance: ${line}`);

const USAGE = `usage: npm run conformance -- [run [args...] | build | up [--kube-only [--no-audit]] | smoke | status | controller stop|start | down]`;

async function status(): Promise<number> {
  const state = readState();
  const rig = existsSync(RIG_JSON)
    ? (JSON.parse(readFileSync(RIG_JSON, 'utf8')) as { kubeOnly?: boolean })
    : {};
  // A kube-only rig runs the processes up to the kubelet stand-in.
  const expected = rig.kubeOnly
    ? PROCESS_ORDER.slice(0, PROCESS_ORDER.indexOf('kubelet-standin') + 1)
    : PROCESS_ORDER;
  let missing = 0;
  for (const name of PROCESS_ORDER) {
    const p = state.procs[name];
    const alive = isRunning(p);
    if (!alive && expected.includes(name)) missing++;
    console.log(
      `${name.padEnd(32)} ${p ? `${alive ? 'running' : 'exited '} pid ${p.pid}  log ${p.log}` : 'not started'}`,
    );
  }
  console.log(existsSync(RIG_JSON) ? `rig.json: ${RIG_JSON}` : 'rig.json: absent (the rig is not up)');
  return missing === 0 && existsSync(RIG_JSON) ? 0 : 1;
}

async function controller(action: string | undefined): Promise<number> {
  const state = readState();
  const spec = state.info['controllerSpec'] as ProcSpec | undefined;
  if (!spec) throw new Error('controller: the rig is not up (run "npm run conformance -- up")');
  if (action === 'stop') {
    say((await stopProcess(state, CONTROLLER)) ? `stopped ${CONTROLLER}` : `${CONTROLLER} was not running`);
    return 0;
  }
  if (action === 'start') {
    if (isRunning(state.procs[CONTROLLER])) {
      say(`${CONTROLLER} is running already (pid ${state.procs[CONTROLLER]!.pid})`);
      return 0;
    }
    const entry = startProcess(state, spec);
    const port = Number(/--metrics-port=(\d+)/.exec(spec.args.join(' '))?.[1]);
    await waitUntil(CONTROLLER, () => portOpen(port), { timeoutMs: 60_000, entry });
    say(`started ${CONTROLLER} (pid ${entry.pid})`);
    return 0;
  }
  throw new Error(`controller: unknown action "${action ?? ''}": use stop or start`);
}

function runCorpus(args: string[]): number {
  const runner = join(CONFORMANCE_DIR, 'compare', 'run.ts');
  if (!existsSync(runner)) {
    console.error(
      `conformance: ${runner}: not found: the corpus runner is not in this checkout (the rig alone: ${USAGE})`,
    );
    return 2;
  }
  const r = spawnSync(process.execPath, ['--import', 'tsx', runner, ...args], { stdio: 'inherit' });
  return r.status ?? 1;
}

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  switch (verb) {
    case undefined:
    case 'run':
      return runCorpus(rest);
    case 'build':
      for (const t of await buildAll(say))
        say(`${t.output}: ${t.skipped ? 'up to date' : `built in ${t.seconds}s`}`);
      return 0;
    case 'up': {
      const started = Date.now();
      const unknown = rest.filter((a) => a !== '--kube-only' && a !== '--no-audit');
      if (unknown.length > 0) throw new Error(`up: unknown argument ${unknown[0]} (${USAGE})`);
      const rig = await up(say, {
        kubeOnly: rest.includes('--kube-only'),
        noAudit: rest.includes('--no-audit'),
      });
      say(
        `up in ${((Date.now() - started) / 1000).toFixed(1)}s: Kubernetes ${rig.versions.kubernetes}` +
          ('kubeOnly' in rig ? ' (kube-only: no Argo CD)' : `, Argo CD ${rig.versions.argocd}`),
      );
      say(`rig.json: ${RIG_JSON}`);
      say(`kubeconfig: ${rig.kubeconfig}`);
      return 0;
    }
    case 'smoke':
      await smoke(say);
      say('smoke check passed');
      return 0;
    case 'status':
      return status();
    case 'controller':
      return controller(rest[0]);
    case 'down': {
      const stopped = await down(say);
      say(stopped.length ? `down (${stopped.length} processes stopped)` : 'nothing was running');
      return 0;
    }
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(`conformance: unknown verb "${verb}"\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`conformance: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
