/**
 * User health checks from argocd-cm (`resource.customizations.health.<group_kind>`), looked up as Argo CD's
 * `VM.GetHealthScript` does: the key `<group>/<Kind>` (`<Kind>` for the core group) as is, else the first
 * key that matches it as a glob (`*`, `?`, `[...]`, `{a,b}`; `*` also crosses "/", as argo-cd `util/glob`
 * compiles without separators). Argo CD's map order makes overlapping globs a coin toss; here the first in
 * argocd-cm order wins. Only overrides with a script count.
 *
 * `HealthOverrides.load` brings the Lua VM (lua.ts, fengari) in only when some override has a script, so
 * runs without user checks never load it.
 */
import { globRegExp } from '../common/index.js';
import type * as LuaVm from './lua.js';
import type { HealthOverride, HealthResult, Unstructured, UserHealthChecks } from './types.js';

type LuaRunner = typeof LuaVm.runHealthLua;

/** The Lua VM module, loaded on first use (about 20 ms of start-up a run without scripts does not pay). */
export function loadLuaVm(): Promise<typeof LuaVm> {
  return import('./lua.js');
}

export class HealthOverrides implements UserHealthChecks {
  readonly #exact = new Map<string, HealthOverride>();
  readonly #globs: Array<{ match: (key: string) => boolean; override: HealthOverride }> = [];
  readonly #run: LuaRunner | undefined;

  /** `entries`: argocd-cm override keys to their script; those with an empty script are left out. */
  static async load(entries: Iterable<readonly [string, HealthOverride]>): Promise<HealthOverrides> {
    const list = [...entries];
    const run = list.some(([, o]) => o.script) ? (await loadLuaVm()).runHealthLua : undefined;
    return new HealthOverrides(list, run);
  }

  private constructor(entries: Iterable<readonly [string, HealthOverride]>, run: LuaRunner | undefined) {
    this.#run = run;
    for (const [key, override] of entries) {
      if (!override.script) continue;
      this.#exact.set(key, override);
      const re = globRegExp(key);
      this.#globs.push({ match: (k) => k === key || (re?.test(k) ?? false), override });
    }
  }

  get size(): number {
    return this.#exact.size;
  }

  /** Runs an override's script on `obj` (lua.ts `runHealthLua`; throws `LuaHealthError`). */
  evaluate(override: HealthOverride, obj: Unstructured): HealthResult | undefined {
    if (!this.#run) throw new Error('HealthOverrides: no Lua VM loaded');
    return this.#run(override.script, obj, { useOpenLibs: override.useOpenLibs });
  }

  /** The script for a group + kind (`GetConfigMapKey`), or undefined. */
  find(group: string, kind: string): HealthOverride | undefined {
    const key = group ? `${group}/${kind}` : kind;
    return this.#exact.get(key) ?? this.#globs.find((g) => g.match(key))?.override;
  }
}
