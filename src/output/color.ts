/**
 * Whether printed output gets ANSI colours. One decision for every command:
 *
 * 1. `--no-color` → no colours.
 * 2. `NO_COLOR` set to a non-empty value → no colours (https://no-color.org: "present and not an empty
 *    string, regardless of its value"); an empty `NO_COLOR` is as if unset. It wins over `FORCE_COLOR`:
 *    an explicit opt-out is never overridden.
 * 3. Otherwise chalk 5's own detection for stdout (its vendored supports-color): `FORCE_COLOR` forces colours
 *    on a pipe or file (`1`, `2`, `3`, `true` or empty) or turns them off (`0`, `false`); without it,
 *    colours only on a TTY whose TERM is not `dumb` (and CI systems chalk knows).
 */
import { supportsColor } from 'chalk';

export function useColor(noColorFlag: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (noColorFlag) return false;
  if (env['NO_COLOR']) return false;
  return supportsColor !== false && supportsColor.level > 0;
}
