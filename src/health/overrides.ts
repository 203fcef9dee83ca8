/**
 * User health checks from argocd-cm (`resource.customizations.health.<group_kind>`), looked up as Argo CD's
 * `VM.GetHealthScript` does: the key `<group>/<Kind>` (`<Kind>` for the core group) as is, else the first
 * key that matches it as a glob (`*`, `?`, `[...]`, `{a,b}`; `*` also crosses "/", as argo-cd `util/glob`
 * compiles without separators). Argo CD's map order makes overlapping globs a coin toss; here the first in
 * argocd-cm order wins. Only overrides with a script count.
 */
import { globRegExp } from '../common/index.js';

export interface HealthOverride {
  script: string;
  useOpenLibs: boolean;
}

export class HealthOverrides {
  readonly #exact = new Map<string, HealthOverride>();
  readonly #globs: Array<{ match: (key: string) => boolean; override: HealthOverride }> = [];

  /** `entries`: argocd-cm override keys to their script; those with an empty script are left out. */
  constructor(entries: Iterable<readonly [string, HealthOverride]>) {
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

  /** The script for a group + kind (`GetConfigMapKey`), or undefined. */
  find(group: string, kind: string): HealthOverride | undefined {
    const key = group ? `${group}/${kind}` : kind;
    return this.#exact.get(key) ?? this.#globs.find((g) => g.match(key))?.override;
  }
}
