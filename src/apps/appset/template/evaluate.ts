/**
 * Go text/template evaluation of a parsed ApplicationSet template against its parameters (the rules:
 * ../template.ts).
 */
import { GoExecError, TemplateError } from './error.js';
import { goPrint, truthy, GO_FUNCTIONS } from './functions.js';
import type { Node, Pipeline, Arg } from './parse.js';

interface Scope {
  dot: unknown;
  vars: Map<string, unknown>[];
}

export class Evaluator {
  constructor(
    private readonly missingKeyError: boolean,
    private readonly root: unknown,
  ) {}

  run(nodes: Node[], scope: Scope): string {
    let out = '';
    for (const n of nodes) {
      switch (n.t) {
        case 'text':
          out += n.text;
          break;
        case 'action': {
          const v = this.pipeline(n.pipe, scope);
          if (n.pipe.decl.length === 0) out += goPrint(v);
          break;
        }
        case 'if':
        case 'with': {
          const inner: Scope = { dot: scope.dot, vars: [...scope.vars, new Map()] };
          const v = this.pipeline(n.pipe, inner);
          if (truthy(v)) out += this.run(n.then, n.t === 'with' ? { ...inner, dot: v } : inner);
          else out += this.run(n.else, inner);
          break;
        }
        case 'range': {
          const inner: Scope = { dot: scope.dot, vars: [...scope.vars, new Map()] };
          const decl = n.pipe.decl;
          const v = this.pipeline({ ...n.pipe, decl: [] }, inner);
          const items: [unknown, unknown][] = Array.isArray(v)
            ? v.map((x, i) => [i, x])
            : v && typeof v === 'object'
              ? Object.keys(v)
                  .sort()
                  .map((k) => [k, (v as Record<string, unknown>)[k]])
              : typeof v === 'number'
                ? Array.from({ length: v }, (_x, i) => [i, i])
                : [];
          if (items.length === 0) {
            out += this.run(n.else, inner);
            break;
          }
          for (const [k, x] of items) {
            const vars = new Map<string, unknown>();
            if (decl.length === 1) vars.set(decl[0]!, x);
            if (decl.length === 2) {
              vars.set(decl[0]!, k);
              vars.set(decl[1]!, x);
            }
            out += this.run(n.body, { dot: x, vars: [...inner.vars, vars] });
          }
          break;
        }
      }
    }
    return out;
  }

  private lookupVar(name: string, scope: Scope): unknown {
    if (name === '$') return this.root;
    for (let i = scope.vars.length - 1; i >= 0; i--)
      if (scope.vars[i]!.has(name)) return scope.vars[i]!.get(name);
    throw new TemplateError(`undefined variable: ${name}`);
  }

  private pipeline(p: Pipeline, scope: Scope): unknown {
    let value: unknown;
    let first = true;
    for (const cmd of p.cmds) {
      value = this.command(cmd, scope, first ? undefined : { value });
      first = false;
    }
    if (p.decl.length > 0) {
      const name = p.decl.at(-1)!;
      if (p.assign) {
        for (let i = scope.vars.length - 1; i >= 0; i--) {
          if (scope.vars[i]!.has(name)) {
            scope.vars[i]!.set(name, value);
            return value;
          }
        }
        throw new TemplateError(`undefined variable: ${name}`);
      }
      scope.vars.at(-1)!.set(name, value);
    }
    return value;
  }

  private command(cmd: Arg[], scope: Scope, piped?: { value: unknown }): unknown {
    const head = cmd[0]!;
    if (head.t === 'ident') {
      const fn = GO_FUNCTIONS[head.name];
      if (!fn)
        throw new TemplateError(`function "${head.name}" not defined (not supported by kubectl-gitops)`);
      const args = cmd.slice(1).map((a) => this.arg(a, scope));
      if (piped) args.push(piped.value);
      return fn(...args);
    }
    if (cmd.length > 1 || piped) throw new TemplateError("can't give argument to non-function");
    return this.arg(head, scope);
  }

  private arg(a: Arg, scope: Scope): unknown {
    switch (a.t) {
      case 'lit':
        return a.value;
      case 'ident': {
        const fn = GO_FUNCTIONS[a.name];
        if (!fn)
          throw new TemplateError(`function "${a.name}" not defined (not supported by kubectl-gitops)`);
        return fn();
      }
      case 'pipe':
        return this.fields(
          this.pipeline(a.pipe, { dot: scope.dot, vars: [...scope.vars, new Map()] }),
          a.path,
        );
      case 'field': {
        const base = a.base === 'dot' ? scope.dot : this.lookupVar(a.base, scope);
        try {
          return this.fields(base, a.path);
        } catch (err) {
          // Go's exec error: `template: base:<line>:<col>: executing "base" at <.field>: ...`.
          if (err instanceof TemplateError && a.at && !(err instanceof GoExecError))
            throw new GoExecError(
              err.message,
              `template: base:${a.at.line}:${a.at.col}: executing "base" at <${a.at.text}>: ${err.message}`,
            );
          throw err;
        }
      }
    }
  }

  private fields(base: unknown, path: string[]): unknown {
    let cur = base;
    for (const key of path) {
      if (cur === undefined || cur === null) {
        if (this.missingKeyError) throw new TemplateError(`map has no entry for key "${key}"`);
        return undefined;
      }
      if (typeof cur !== 'object' || Array.isArray(cur))
        throw new TemplateError(
          `can't evaluate field ${key} in type ${Array.isArray(cur) ? 'slice' : typeof cur}`,
        );
      const rec = cur as Record<string, unknown>;
      if (!(key in rec)) {
        if (this.missingKeyError) throw new TemplateError(`map has no entry for key "${key}"`);
        return undefined;
      }
      cur = rec[key];
    }
    return cur;
  }
}
