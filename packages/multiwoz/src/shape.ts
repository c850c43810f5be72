/**
 * The few input shapes this package checks (predictions, data tables, MultiWOZ 2.1 goal domains), validated without
 * loading zod: each shape reports the same issues (path and message) and returns the same value as the zod 4 schema
 * it stands for (`schemas.ts`, the `@eval/multiwoz/schemas` entry; a test compares the two on many invalid inputs).
 * Only `string`, `unknown`, `array`, `record` (string keys), `looseObject` and `optional` are needed.
 */
import type { z } from 'zod';
import { InputError, type InputIssue } from '@eval/core';

export interface ShapeIssue {
  path: Array<string | number>;
  message: string;
}

/** A shape: parses `value` (zod's output: records and objects copied, `__proto__` keys dropped) or adds issues. */
export interface Shape<T> {
  /** @internal */
  run(value: unknown, path: Array<string | number>, issues: ShapeIssue[]): T;
  /** @internal */
  optional?: boolean;
}

/** zod's `util.parsedType` with the en locale's type names (what "received ..." says). */
function received(data: unknown): string {
  const t = typeof data;
  if (t === 'number') return Number.isNaN(data) ? 'NaN' : Number.isFinite(data) ? 'number' : String(data);
  if (t === 'object') {
    if (data === null) return 'null';
    if (Array.isArray(data)) return 'array';
    const obj = data as { constructor?: { name?: string } };
    if (Object.getPrototypeOf(obj) !== Object.prototype && 'constructor' in obj && obj.constructor)
      return obj.constructor.name as string;
  }
  return t;
}

function invalidType(expected: string, input: unknown, path: Array<string | number>, issues: ShapeIssue[]): void {
  issues.push({ path: path.slice(), message: `Invalid input: expected ${expected}, received ${received(input)}` });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** zod's `util.isPlainObject` (what `z.record` accepts). */
function isPlainObject(o: unknown): o is Record<string, unknown> {
  if (!isObject(o)) return false;
  const ctor = (o as { constructor?: unknown }).constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const prot = (ctor as { prototype?: unknown }).prototype;
  if (!isObject(prot)) return false;
  return Object.hasOwn(prot, 'isPrototypeOf');
}

export const string: Shape<string> = {
  run(value, path, issues) {
    if (typeof value !== 'string') invalidType('string', value, path, issues);
    return value as string;
  },
};

export const unknown: Shape<unknown> = { run: (value) => value };

export function optional<T>(inner: Shape<T>): Shape<T | undefined> {
  return {
    optional: true,
    run: (value, path, issues) => (value === undefined ? undefined : inner.run(value, path, issues)),
  };
}

export function array<T>(element: Shape<T>): Shape<T[]> {
  return {
    run(value, path, issues) {
      if (!Array.isArray(value)) {
        invalidType('array', value, path, issues);
        return value as T[];
      }
      const out: T[] = new Array(value.length);
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        out[i] = element.run(value[i], path, issues);
        path.pop();
      }
      return out;
    },
  };
}

/** `z.record(z.string(), value)`: own enumerable string keys, `__proto__` skipped (symbol keys are invalid). */
export function record<T>(valueShape: Shape<T>): Shape<Record<string, T>> {
  return {
    run(value, path, issues) {
      if (!isPlainObject(value)) {
        invalidType('record', value, path, issues);
        return value as Record<string, T>;
      }
      const out: Record<string, T> = {};
      for (const key of Reflect.ownKeys(value)) {
        if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, key)) continue;
        if (typeof key === 'symbol') {
          issues.push({ path: [...path, key.toString()], message: 'Invalid key in record' });
          continue;
        }
        path.push(key);
        out[key] = valueShape.run(value[key], path, issues);
        path.pop();
      }
      return out;
    },
  };
}

/** `z.looseObject(shape)`: declared keys checked in order (optional ones only when present), other keys kept. */
export function looseObject<T extends Record<string, unknown>>(shape: { [K in keyof T]: Shape<T[K]> }): Shape<T> {
  const keys = Object.keys(shape) as Array<keyof T & string>;
  return {
    run(value, path, issues) {
      if (!isObject(value)) {
        invalidType('object', value, path, issues);
        return value as T;
      }
      const out: Record<string, unknown> = {};
      for (const key of keys) {
        const s = shape[key];
        const present = key in value;
        if (s.optional && !present) continue;
        path.push(key);
        const before = issues.length;
        const v = s.run(value[key], path, issues);
        path.pop();
        if (issues.length === before && (v !== undefined || present)) out[key] = v;
      }
      for (const key in value) if (!keys.includes(key) && key !== '__proto__') out[key] = value[key];
      return out as T;
    },
  };
}

/** Parses `value` against `shape`: the issues (none when valid) and zod's output value. */
export function parseShape<T>(shape: Shape<T>, value: unknown): { issues: ShapeIssue[]; data: T } {
  const issues: ShapeIssue[] = [];
  const data = shape.run(value, [], issues);
  return { issues, data };
}

/**
 * `validate(schema, value, location)` of `@eval/core` for a shape: the value, or the same {@link InputError} as
 * `InputError.fromZod` builds from zod's issues (it reads only their paths and messages).
 */
export function validateShape<T>(
  shape: Shape<T>,
  value: unknown,
  location: { file?: string; record?: string | number; field?: Array<string | number> } = {},
): T {
  const { issues, data } = parseShape(shape, value);
  if (issues.length === 0) return data;
  throw InputError.fromZod({ issues: issues as InputIssue[] } as unknown as z.ZodError, location);
}
