/**
 * Kubernetes resource quantities (k8s.io/apimachinery `resource.Quantity`): parse and re-print in the
 * canonical form the API server stores, so `1000m` compares equal to `1` and `1024Mi` to `1Gi`.
 *
 * Rules (Quantity.String / CanonicalizeBytes):
 * - The format comes from the suffix: binary (Ki Mi Gi Ti Pi Ei), decimal SI (n u m "" k M G T P E) or
 *   decimal exponent (`1e3`, `1E3`). Numbers without suffix are decimal SI.
 * - Values are rounded up (away from zero) to nano precision.
 * - Decimal forms print the largest exponent that is a multiple of 3 leaving an integer mantissa
 *   (`1500m`, `1`, `1k`, `1200`, `500m`; exponent form `1e3`).
 * - Binary form prints the largest power of 1024 leaving an integer mantissa (`1Gi`, `1536Mi`); values
 *   under 1024 in magnitude or not whole numbers are printed in decimal SI instead.
 * Format is kept: `1Gi` and `1073741824` stay different strings, as they do on a real server.
 */

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX = new Map(Object.entries(DECIMAL).map(([s, e]) => [e, s]));
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

const PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE])?$/;

/** A parsed quantity: value = sign * mantissa * 10^exp. */
export interface Quantity {
  negative: boolean;
  mantissa: bigint;
  exp: number;
  format: Format;
}

/** Parses a quantity string or number; undefined when it is not a quantity. */
export function parseQuantity(input: string | number): Quantity | undefined {
  const text = typeof input === 'number' ? numberText(input) : input.trim();
  if (text === undefined) return undefined;
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  const [, sign = '', whole = '', frac = '', suffix = ''] = m;
  if (whole === '' && frac === '') return undefined;
  let mantissa = BigInt((whole || '0') + frac);
  let exp = -frac.length;
  let format: Format = 'DecimalSI';
  if (suffix in BINARY) {
    format = 'BinarySI';
    mantissa *= 1024n ** BigInt(BINARY[suffix]!);
  } else if (suffix.startsWith('e') || suffix.startsWith('E')) {
    format = 'DecimalExponent';
    exp += Number(suffix.slice(1));
  } else {
    exp += DECIMAL[suffix]!;
  }
  if (exp < -9) {
    // Round up (away from zero) to nano precision.
    const div = 10n ** BigInt(-9 - exp);
    mantissa = (mantissa + div - 1n) / div;
    exp = -9;
  }
  return { negative: sign === '-' && mantissa !== 0n, mantissa, exp, format };
}

function numberText(n: number): string | undefined {
  if (!Number.isFinite(n)) return undefined;
  // Plain decimal notation; exponents from JS (1e21) are valid quantity syntax too.
  return String(n);
}

/** Strips trailing zeros of the mantissa into the exponent. */
function reduce(q: Quantity): { m: bigint; e: number } {
  let m = q.mantissa;
  let e = q.exp;
  if (m === 0n) return { m, e: 0 };
  while (m % 10n === 0n) {
    m /= 10n;
    e += 1;
  }
  return { m, e };
}

/** The canonical string of a parsed quantity. */
export function formatQuantity(q: Quantity): string {
  const sign = q.negative ? '-' : '';
  const { m, e } = reduce(q);
  if (m === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    if (e < 0) format = 'DecimalSI';
    else {
      const whole = m * 10n ** BigInt(e);
      if (whole < 1024n) format = 'DecimalSI';
      else {
        let k = 0;
        let v = whole;
        while (k < 6 && v % 1024n === 0n) {
          v /= 1024n;
          k += 1;
        }
        return `${sign}${v}${BINARY_SUFFIX[k]}`;
      }
    }
  }
  let e3 = Math.floor(e / 3) * 3;
  if (format === 'DecimalSI') e3 = Math.min(Math.max(e3, -9), 18);
  const mantissa = m * 10n ** BigInt(e - e3);
  if (format === 'DecimalExponent') return `${sign}${mantissa}${e3 === 0 ? '' : `e${e3}`}`;
  return `${sign}${mantissa}${DECIMAL_SUFFIX.get(e3)}`;
}

/** Canonical form of a quantity value; values that are not quantities are returned unchanged. */
export function canonicalQuantity<T>(value: T): T | string {
  if (typeof value !== 'string' && typeof value !== 'number') return value;
  const known = canonical.get(value);
  if (known !== undefined) return known ?? value;
  const q = parseQuantity(value);
  const text = q ? formatQuantity(q) : null;
  if (canonical.size < 10_000) canonical.set(value, text);
  return text ?? value;
}

/**
 * Canonical forms already computed: every compare canonicalizes each container's requests and limits, and
 * a fleet repeats the same few values ("100m", "128Mi"); parsing goes through BigInt.
 */
const canonical = new Map<string | number, string | null>();

const QUANTITY_FORMAT =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_SUFFIX = "unable to parse quantity's suffix";

/**
 * ParseQuantity's error for `str` (ErrFormatWrong, ErrSuffix) as the API server words it, or undefined when
 * it parses (the schema validation of targets and the embedded server's decode step).
 */
export function quantityError(str: string): string | undefined {
  if (str.length === 0) return QUANTITY_FORMAT;
  if (str === '0') return undefined;
  if (PATTERN.test(str)) return undefined; // the grammar parseQuantity reads (src/diff's comparisons too)
  // Otherwise, as parseQuantityString splits it: sign, digits, optional "." and digits, then suffix
  // letters, optional sign and digits; anything after that is the wrong format, else the suffix is.
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*)([-+]?[0-9]*)(.*)$/.exec(str);
  if (!m || m[6] !== '') return QUANTITY_FORMAT;
  const suffix = `${m[4]}${m[5]}`;
  const exponent = /^[eE][-+]?[0-9]+$/.test(suffix);
  // (An empty numeric part counts as 0, as Go's parser takes it; its numeric error needs an overflow.)
  if (!(suffix in DECIMAL) && !(suffix in BINARY) && !exponent) return QUANTITY_SUFFIX;
  return undefined;
}
