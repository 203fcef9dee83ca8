/**
 * A small parser of the Prometheus text exposition format (0.0.4), written from the format's description
 * (prometheus.io/docs/instrumenting/exposition_formats), for tests that scrape `/metrics` over HTTP: `# HELP`
 * and `# TYPE` lines, samples with label sets (escapes `\\`, `\"`, `\n` in values) and values. Values are
 * read as Prometheus reads them (Go's strconv.ParseFloat: `NaN`, `+Inf`, `-Inf` in any letter case; prom-client
 * writes "Nan" for a NaN gauge). Anything else is an error naming the line, so a malformed exposition fails.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parseExposition(text: string): Exposition {
  const out: Exposition = { help: new Map(), type: new Map(), samples: [] };
  text.split('\n').forEach((line, i) => {
    const fail = (why: string): never => {
      throw new Error(`exposition line ${i + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
      if (!m) return; // a plain comment
      const [, what, name, rest] = m as unknown as [string, string, string, string];
      const map = what === 'HELP' ? out.help : out.type;
      if (map.has(name)) fail(`second ${what} for ${name}`);
      if (what === 'TYPE' && !['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
        fail('unknown type');
      map.set(name, what === 'HELP' ? rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\') : rest);
      return;
    }
    const name = NAME.exec(line)?.[0] ?? fail('no metric name');
    let pos = name.length;
    const labels: Record<string, string> = {};
    if (line[pos] === '{') {
      pos++;
      while (line[pos] !== '}') {
        const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(pos)) ?? fail('bad label');
        pos += label[0].length;
        let value = '';
        for (;;) {
          const c = line[pos++] ?? fail('unterminated label value');
          if (c === '"') break;
          if (c === '\\') {
            const e = line[pos++];
            value += e === 'n' ? '\n' : e === '\\' ? '\\' : e === '"' ? '"' : fail('bad escape');
          } else value += c;
        }
        if (label[1]! in labels) fail(`label ${label[1]} twice`);
        labels[label[1]!] = value;
        if (line[pos] === ',') pos++;
        else if (line[pos] !== '}') fail('expected , or }');
      }
      pos++;
    }
    const rest = line.slice(pos).trim().split(/\s+/);
    const raw = rest[0] ?? fail('no value');
    const special = /^([+-]?)(inf|infinity|nan)$/i.exec(raw);
    const value = special
      ? special[2]!.toLowerCase() === 'nan'
        ? NaN
        : special[1] === '-'
          ? -Infinity
          : Infinity
      : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)
        ? Number(raw)
        : fail('bad value');
    out.samples.push({ name, labels, value });
  });
  return out;
}

/** Samples named `name` whose labels include `match`. */
export function find(e: Exposition, name: string, match: Record<string, string> = {}): Sample[] {
  return e.samples.filter(
    (s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v),
  );
}

/** The one sample named `name` with labels including `match`; throws when there are none or several. */
export function one(e: Exposition, name: string, match: Record<string, string> = {}): Sample {
  const all = find(e, name, match);
  if (all.length !== 1) throw new Error(`${all.length} samples of ${name} match ${JSON.stringify(match)}`);
  return all[0]!;
}

/** GET `url` and parse it; asserts nothing about the status (callers do). */
export async function scrape(
  url: string,
): Promise<{ status: number; contentType: string; exposition: Exposition }> {
  const res = await fetch(url);
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    exposition: parseExposition(text),
  };
}
