import { InvalidArgumentError } from 'commander';

/**
 * Commander argument parsers for numeric flags (`new Option(...).argParser(integer('--seed', { min: 0 }))` or
 * `.option(flags, description, integer('--n', { min: 1 }), 10)`): actions receive numbers. A bad value throws
 * commander's `InvalidArgumentError` naming the flag (`--seed expects a non-negative integer, got "x"`), which
 * commander reports as `error: option '--seed <n>' argument 'x' is invalid. ...` and `main` turns into exit 2.
 * Defaults passed to commander are not parsed: give them as numbers. Imports nothing but commander (commands load it).
 */
export type ArgParser<T> = (value: string) => T;

/** An integer; with `min` 1 or 0 the message says "a positive" / "a non-negative integer". */
export function integer(flag: string, options: { min?: number } = {}): ArgParser<number> {
  const what = options.min === 1 ? 'a positive integer' : options.min === 0 ? 'a non-negative integer' : 'an integer';
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < (options.min ?? Number.MIN_SAFE_INTEGER)) {
      throw new InvalidArgumentError(`${flag} expects ${what}, got "${value}"`);
    }
    return n;
  };
}

/** A finite number >= 0. */
export function nonNegativeNumber(flag: string): ArgParser<number> {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0)
      throw new InvalidArgumentError(`${flag} expects a non-negative number, got "${value}"`);
    return n;
  };
}

/** A confidence level, strictly between 0 and 1. */
export function confidenceLevel(flag = '--confidence'): ArgParser<number> {
  return (value) => {
    const x = Number(value);
    if (!(x > 0 && x < 1)) throw new InvalidArgumentError(`${flag} expects a number between 0 and 1, got "${value}"`);
    return x;
  };
}
