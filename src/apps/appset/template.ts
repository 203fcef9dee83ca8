/**
 * ApplicationSet template strings, rendered as the ApplicationSet controller renders them
 * (argo-cd `applicationset/utils/utils.go` `Render.Replace`, see docs/appsets.md):
 *
 * - Default mode (fasttemplate): every `{{ tag }}` whose trimmed tag is a string parameter is replaced;
 *   any other tag (unknown parameter, empty tag) is left as written, braces included.
 * - `goTemplate: true`: a Go `text/template` subset evaluated against the parameter tree: text, actions
 *   with `{{-`/`-}}` trimming, field chains (`.path.basename`, `$.x`, `$var.y`), string/number/bool/nil
 *   literals, pipelines (`a | f b`), parenthesised pipelines, variables (`$x := ...`, `$x = ...`), `if`/
 *   `else if`/`else`, `range` (lists and maps, with `$i, $v :=`), `with`, `end`, comments. Functions: the
 *   ones listed in `GO_FUNCTIONS` (Go builtins and the Sprig ones people use, plus Argo CD's `normalize`
 *   and `slugify`); any other function is an error naming it. `goTemplateOptions: ["missingkey=error"]`
 *   turns a missing map key into an error; otherwise it prints `<no value>` as Go does.
 *
 * Layout: template/parse.ts (lexer, parser), template/evaluate.ts (evaluation), template/functions.ts
 * (the function table and the Go value helpers generators share), template/error.ts; this file renders.
 */
import type { Params } from './template/error.js';
import { GoExecError, TemplateError } from './template/error.js';
import { Evaluator } from './template/evaluate.js';
import type { Node } from './template/parse.js';
import { parseNodes } from './template/parse.js';

export { TemplateError, type Params } from './template/error.js';
export { GO_FUNCTIONS, goPrint, posixClean, posixDir, sanitizeName } from './template/functions.js';

// ---------------------------------------------------------------- fasttemplate

/** Default (non-Go) substitution: `{{ key }}` -> params[key] when that is a string; else left as is. */
export function replaceFast(text: string, params: Params): string {
  if (!text.includes('{{')) return text;
  let out = '';
  let i = 0;
  for (;;) {
    const open = text.indexOf('{{', i);
    if (open < 0) break;
    const close = text.indexOf('}}', open + 2);
    if (close < 0) break;
    out += text.slice(i, open);
    const tag = text.slice(open + 2, close);
    const value = params[tag.trim()];
    out += tag.trim() !== '' && typeof value === 'string' ? value : `{{${tag}}}`;
    i = close + 2;
  }
  return out + text.slice(i);
}

const parsed = new Map<string, Node[]>();

/** Renders `text` as a Go template against `params`. `options` are goTemplateOptions. */
export function renderGoTemplate(text: string, params: Params, options: readonly string[] = []): string {
  if (!text.includes('{{')) return text;
  let nodes = parsed.get(text);
  if (!nodes) {
    nodes = parseNodes(text);
    parsed.set(text, nodes);
  }
  const missingKeyError = options.includes('missingkey=error');
  try {
    return new Evaluator(missingKeyError, params).run(nodes, {
      dot: params,
      vars: [new Map([['$', params]])],
    });
  } catch (err) {
    // Argo CD's words (applicationset/utils/utils.go Replace): the template text and Go's exec error.
    if (err instanceof GoExecError)
      throw new TemplateError(err.message, `failed to execute go template ${text}: ${err.goMessage}`);
    throw err;
  }
}

/** One template string in the ApplicationSet's mode. */
export function renderString(
  text: string,
  params: Params,
  goTemplate: boolean,
  options: readonly string[] = [],
): string {
  return goTemplate ? renderGoTemplate(text, params, options) : replaceFast(text, params);
}

/** Every string of a JSON tree rendered, map keys included (as Argo CD does); a new tree is returned. */
export function renderTree<T>(
  tree: T,
  params: Params,
  goTemplate: boolean,
  options: readonly string[] = [],
): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return renderString(v, params, goTemplate, options);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>))
        out[renderString(k, params, goTemplate, options)] = walk(x);
      return out;
    }
    return v;
  };
  return walk(tree) as T;
}
