import { decomposeDouble, ratioToDouble } from '../stats';

/**
 * Python's `round(x, ndigits)` for floats (CPython 3.11 `float.__round__`, `Objects/floatobject.c` `double_round`): the exact binary value is rounded to `ndigits` decimals,
 * ties to even, then converted back correctly rounded. (`Number(x.toFixed(n))` differs on exact ties.)
 */
export function pythonRound(x: number, ndigits = 0): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const { mantissa, exponent } = decomposeDouble(x);
  if (exponent >= 0 && ndigits >= 0) return x;
  // x = mantissa * 2^exponent; scaled = x * 10^ndigits as a rational num/den
  let num = mantissa;
  let den = 1n;
  if (exponent >= 0) num <<= BigInt(exponent);
  else den <<= BigInt(-exponent);
  if (ndigits >= 0) num *= 10n ** BigInt(ndigits);
  else den *= 10n ** BigInt(-ndigits);
  const negative = num < 0n;
  if (negative) num = -num;
  let q = num / den;
  const r = num % den;
  if (2n * r > den || (2n * r === den && (q & 1n) === 1n)) q += 1n;
  if (negative) q = -q;
  const result =
    ndigits >= 0 ? ratioToDouble(q, 10n ** BigInt(ndigits)) : ratioToDouble(q * 10n ** BigInt(-ndigits), 1n);
  return result === 0 && negative ? -0 : result;
}

/** Python's `repr(float)` (CPython 3.11 `float_repr`, `repr` mode of `PyOS_double_to_string`): shortest round-trip digits, `1e-05` / `1e+16` exponent rules, `.0` on integral values. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // 1e-4 <= |x| < 1e16: Python's fixed notation, whose digits are the shortest round-trip ones, as JS's own: a
  // fraction prints as JS prints it, an integral value gains `.0` (JS writes no exponent below 1e21)
  const ax = x < 0 ? -x : x;
  if (ax >= 1e-4 && ax < 1e16) return Number.isInteger(x) ? `${x}.0` : String(x);
  const sign = x < 0 ? '-' : '';
  const [mant, expStr] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const decpt = Number(expStr) + 1;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const e = decpt - 1;
  const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${body}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}
