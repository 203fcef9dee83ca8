/**
 * A fast path for printing Kubernetes objects as YAML: the exact text `stringify(value, YAML_OUT)` of the
 * `yaml` library gives, for the shapes manifests are made of, at a fraction of the cost (the library builds
 * a document tree per object; a warm `render` of 1,000 objects spent most of its time there).
 *
 * It answers only where the library's choice is certain, and returns undefined otherwise (the caller then
 * uses the library): maps with plain keys (a letter or `_`, then letters, digits, `.`, `_`, `/`, `-`, not a
 * YAML 1.1 boolean or null word), sequences (not directly nested in sequences), strings that are plain by the
 * same rule (values may also hold `:`, not as their last character: `app:/ConfigMap:ns/name`) or are decimal numbers (printed double-quoted, as the library does so they stay strings), safe
 * integers, booleans, null and empty maps/sequences (`{}`, `[]`). Anything else (other strings, floats,
 * undefined values, a sequence in a sequence) makes the whole value go to the library. The test
 * (test/output/yaml-fast.test.ts) compares both printers on every object of the test fixtures.
 */

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9._/-]*$/;
/** Values may hold ":" too (a tracking id), never last: the library quotes a ":" before a space or the end. */
const PLAIN_VALUE = /^[A-Za-z_][A-Za-z0-9._/:-]*[A-Za-z0-9._/-]$|^[A-Za-z_]$/;
const DECIMAL = /^[0-9]+(?:\.[0-9]+)?$/;
/** YAML 1.1 words that read as booleans or null (compared lower-cased: stricter than YAML's own list). */
const WORDS = new Set(['y', 'n', 'yes', 'no', 'true', 'false', 'on', 'off', 'null']);

/** Thrown inside the printer when the library's choice is not certain. */
const UNSURE = Symbol('unsure');

function plain(text: string, pattern = PLAIN_KEY): boolean {
  return pattern.test(text) && !WORDS.has(text.toLowerCase());
}

function scalar(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
    throw UNSURE;
  }
  if (typeof value === 'string') {
    if (value === '') return '""';
    if (plain(value, PLAIN_VALUE)) return value;
    if (DECIMAL.test(value)) return `"${value}"`;
  }
  throw UNSURE;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` (a map or sequence entry's value) after "key:" or "- ", as the rest of that line and below. */
function emitValue(value: unknown, indent: string, out: string[], afterDash: boolean): void {
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push(' []\n');
      return;
    }
    if (afterDash) throw UNSURE; // a sequence directly in a sequence: "- - x"
    out.push('\n');
    emitSeq(value, indent, out);
  } else if (isMap(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) {
      out.push(' {}\n');
      return;
    }
    out.push('\n');
    emitMap(value, keys, indent, out, false);
  } else {
    out.push(' ', scalar(value), '\n');
  }
}

function emitMap(
  map: Record<string, unknown>,
  keys: string[],
  indent: string,
  out: string[],
  firstInline: boolean,
): void {
  keys.forEach((key, i) => {
    if (!plain(key)) throw UNSURE;
    const value = map[key];
    if (value === undefined) throw UNSURE;
    out.push(i === 0 && firstInline ? '' : indent, key, ':');
    emitValue(value, `${indent}  `, out, false);
  });
}

function emitSeq(seq: unknown[], indent: string, out: string[]): void {
  for (const item of seq) {
    if (item === undefined) throw UNSURE;
    if (isMap(item)) {
      const keys = Object.keys(item);
      if (keys.length === 0) {
        out.push(indent, '- {}\n');
        continue;
      }
      out.push(indent, '- ');
      emitMap(item, keys, `${indent}  `, out, true);
    } else if (Array.isArray(item)) {
      if (item.length > 0) throw UNSURE;
      out.push(indent, '- []\n');
    } else {
      out.push(indent, '- ', scalar(item), '\n');
    }
  }
}

/** The library's YAML for a map (a Kubernetes object), or undefined when this printer is not sure. */
export function fastObjectYaml(value: Record<string, unknown>): string | undefined {
  const keys = Object.keys(value);
  if (keys.length === 0) return undefined;
  const out: string[] = [];
  try {
    emitMap(value, keys, '', out, false);
  } catch (err) {
    if (err === UNSURE) return undefined;
    throw err;
  }
  return out.join('');
}
