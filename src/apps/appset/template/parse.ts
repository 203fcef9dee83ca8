/**
 * Go text/template lexer and parser for ApplicationSet templates: text and actions to a node tree (the
 * rules: ../template.ts).
 */
import { TemplateError } from './error.js';

export type Node =
  | { t: 'text'; text: string }
  | { t: 'action'; pipe: Pipeline }
  | { t: 'if' | 'with'; pipe: Pipeline; then: Node[]; else: Node[] }
  | { t: 'range'; pipe: Pipeline; body: Node[]; else: Node[] };

export interface Pipeline {
  decl: string[];
  assign: boolean;
  cmds: Arg[][];
}

/** Where a node starts, as Go's ErrorContext prints it: `line:col` (col: bytes into the line), and its text. */
export interface At {
  line: number;
  col: number;
  text: string;
}

export type Arg =
  | { t: 'field'; base: 'dot' | string; path: string[]; at?: At | undefined }
  | { t: 'lit'; value: unknown }
  | { t: 'ident'; name: string }
  | { t: 'pipe'; pipe: Pipeline; path: string[] };

interface Action {
  text: string;
  /** Index in the source of the action's first character (after `{{`, `-` and spaces). */
  offset: number;
}

function splitTemplate(src: string): (string | Action)[] {
  const out: (string | Action)[] = [];
  let i = 0;
  let pendingTrim = false;
  for (;;) {
    const open = src.indexOf('{{', i);
    let text = open < 0 ? src.slice(i) : src.slice(i, open);
    if (pendingTrim) text = text.replace(/^\s+/, '');
    if (open < 0) {
      if (text) out.push(text);
      return out;
    }
    let inner = open + 2;
    if (src.startsWith('- ', inner) || src.startsWith('-\t', inner) || src.startsWith('-\n', inner)) {
      text = text.replace(/\s+$/, '');
      inner += 1;
    }
    if (text) out.push(text);
    // Find the closing braces outside string literals.
    let j = inner;
    let quote = '';
    for (; j < src.length; j++) {
      const c = src[j]!;
      if (quote) {
        if (c === '\\' && quote === '"') j++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === '`') quote = c;
      else if (src.startsWith('}}', j)) break;
    }
    if (j >= src.length) throw new TemplateError('unclosed action');
    let body = src.slice(inner, j);
    pendingTrim = false;
    if (/\s-$/.test(body)) {
      body = body.slice(0, -1);
      pendingTrim = true;
    }
    out.push({ text: body.trim(), offset: inner + (body.length - body.trimStart().length) });
    i = j + 2;
  }
}

interface Token {
  s: string;
  /** Index in the action's text. */
  at: number;
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const tokens = {
    push(tok: string): void {
      out.push({ s: tok, at: i }); // every branch pushes before moving past the token
    },
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      tokens.push(text.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (c === '`') {
      const j = text.indexOf('`', i + 1);
      if (j < 0) throw new TemplateError('unterminated raw string');
      tokens.push(text.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (c === '(' || c === ')' || c === '|' || c === ',') {
      tokens.push(c);
      i++;
      continue;
    }
    if (text.startsWith(':=', i)) {
      tokens.push(':=');
      i += 2;
      continue;
    }
    if (c === '=') {
      tokens.push('=');
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && !/[\s()|,=]/.test(text[j]!) && !text.startsWith(':=', j)) j++;
    // A field chain after a parenthesis: ").foo.bar" stays one token starting with ".".
    tokens.push(text.slice(i, j));
    i = j;
  }
  return out;
}

class PipeParser {
  private i = 0;
  private readonly tokens: string[];
  constructor(
    private readonly toks: Token[],
    /** The `At` of a token (by index). */
    private readonly where: (tok: Token) => At,
  ) {
    this.tokens = toks.map((t) => t.s);
  }

  parse(): Pipeline {
    const p = this.pipeline();
    if (this.i < this.tokens.length) throw new TemplateError(`unexpected "${this.tokens[this.i]}"`);
    return p;
  }

  private pipeline(): Pipeline {
    const decl: string[] = [];
    let assign = false;
    // Declarations: "$x :=", "$i, $v :=", "$x ="
    const save = this.i;
    while (this.tokens[this.i]?.startsWith('$')) {
      decl.push(this.tokens[this.i]!);
      this.i++;
      if (this.tokens[this.i] === ',') {
        this.i++;
        continue;
      }
      break;
    }
    if (decl.length > 0 && (this.tokens[this.i] === ':=' || this.tokens[this.i] === '=')) {
      assign = this.tokens[this.i] === '=';
      this.i++;
    } else {
      decl.length = 0;
      this.i = save;
    }
    const cmds: Arg[][] = [];
    for (;;) {
      const cmd: Arg[] = [];
      while (this.i < this.tokens.length && this.tokens[this.i] !== '|' && this.tokens[this.i] !== ')') {
        cmd.push(this.operand());
      }
      if (cmd.length === 0) throw new TemplateError('missing command in pipeline');
      cmds.push(cmd);
      if (this.tokens[this.i] === '|') {
        this.i++;
        continue;
      }
      break;
    }
    return { decl, assign, cmds };
  }

  private operand(): Arg {
    const token = this.toks[this.i]!;
    const tok = this.tokens[this.i++]!;
    if (tok === '(') {
      const pipe = this.pipeline();
      if (this.tokens[this.i] !== ')') throw new TemplateError('unclosed parenthesis');
      this.i++;
      let path: string[] = [];
      const next = this.tokens[this.i];
      if (next?.startsWith('.') && next !== '.') {
        path = next.slice(1).split('.');
        this.i++;
      }
      return { t: 'pipe', pipe, path };
    }
    if (tok.startsWith('"')) return { t: 'lit', value: JSON.parse(tok) as string };
    if (tok.startsWith('`')) return { t: 'lit', value: tok.slice(1, -1) };
    if (tok === 'true' || tok === 'false') return { t: 'lit', value: tok === 'true' };
    if (tok === 'nil') return { t: 'lit', value: null };
    if (/^[-+]?\d+(\.\d+)?$/.test(tok)) return { t: 'lit', value: Number(tok) };
    if (tok === '.') return { t: 'field', base: 'dot', path: [] };
    if (tok.startsWith('.'))
      return { t: 'field', base: 'dot', path: tok.slice(1).split('.'), at: this.where(token) };
    if (tok.startsWith('$')) {
      const [name, ...path] = tok.split('.');
      return { t: 'field', base: name!, path, at: this.where(token) };
    }
    if (/^[A-Za-z_]\w*$/.test(tok)) return { t: 'ident', name: tok };
    throw new TemplateError(`unexpected "${tok}"`);
  }
}

/** Go's ErrorContext position of index `pos` of `src`: line (1-based) and byte column within it. */
function positionOf(src: string, pos: number): { line: number; col: number } {
  const before = src.slice(0, pos);
  const nl = before.lastIndexOf('\n');
  return {
    line: 1 + (before.match(/\n/g)?.length ?? 0),
    col: Buffer.byteLength(nl < 0 ? before : before.slice(nl + 1)),
  };
}

export function parseNodes(src: string): Node[] {
  const parts = splitTemplate(src);
  const parsePipeline = (text: string, offset: number): Pipeline =>
    new PipeParser(tokenize(text), (tok) => ({ ...positionOf(src, offset + tok.at), text: tok.s })).parse();
  let i = 0;
  const block = (stopAt: string[]): { nodes: Node[]; stop: string; rest: string; restAt: number } => {
    const nodes: Node[] = [];
    while (i < parts.length) {
      const part = parts[i++]!;
      if (typeof part === 'string') {
        nodes.push({ t: 'text', text: part });
        continue;
      }
      const text = part.text;
      if (text.startsWith('/*')) continue;
      const word = /^(\w+)\b/.exec(text)?.[1] ?? '';
      if (word === 'end' || word === 'else') {
        if (!stopAt.includes(word)) throw new TemplateError(`unexpected {{${word}}}`);
        const rest = text.slice(word.length);
        return {
          nodes,
          stop: word,
          rest: rest.trim(),
          restAt: part.offset + word.length + (rest.length - rest.trimStart().length),
        };
      }
      if (word === 'if' || word === 'with' || word === 'range') {
        const cond = text.slice(word.length);
        nodes.push(
          control(word, cond.trim(), part.offset + word.length + (cond.length - cond.trimStart().length)),
        );
        continue;
      }
      if (['define', 'template', 'block', 'break', 'continue'].includes(word))
        throw new TemplateError(`{{${word}}} is not supported`);
      nodes.push({ t: 'action', pipe: parsePipeline(text, part.offset) });
    }
    if (stopAt.length > 0) throw new TemplateError('unexpected EOF: missing {{end}}');
    return { nodes, stop: '', rest: '', restAt: 0 };
  };
  const control = (word: 'if' | 'with' | 'range', cond: string, at: number): Node => {
    const pipe = parsePipeline(cond, at);
    const body = block(['end', 'else']);
    let elseNodes: Node[] = [];
    if (body.stop === 'else') {
      const nested = (n: number): [string, number] => {
        const r = body.rest.slice(n);
        return [r.trim(), body.restAt + n + (r.length - r.trimStart().length)];
      };
      if (body.rest.startsWith('if ') && word === 'if') {
        // "else if": a nested if whose {{end}} closes both.
        elseNodes = [control('if', ...nested(3))];
      } else if (body.rest.startsWith('with ') && word === 'with') {
        elseNodes = [control('with', ...nested(5))];
      } else {
        elseNodes = block(['end']).nodes;
      }
    }
    if (word === 'range') return { t: 'range', pipe, body: body.nodes, else: elseNodes };
    return { t: word, pipe, then: body.nodes, else: elseNodes };
  };
  return block([]).nodes;
}
