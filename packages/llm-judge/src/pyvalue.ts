/**
 * Python values as the reference's parsers produce them (`json.loads`, `eval` of a literal), with Python's
 * semantics where they differ from JavaScript: dicts keep insertion order for every key (JS objects move
 * integer-like keys first), keys are compared by Python equality (`1 == 1.0 == True`), tuples and sets exist.
 * Numbers do not keep the int/float distinction: integral values are taken as ints (`'guess'` in `@eval/core`).
 */
import { pythonRepr as corePythonRepr, pythonReprSymbol } from '@eval/core';

/**
 * Python 3 `repr()` of these values and of JSON-like data (`@eval/core`'s `pythonRepr`): integral numbers below 1e16
 * print as ints, other numbers with Python's float `repr`; dicts, tuples and sets as Python shows them.
 */
export function pythonRepr(value: unknown): string {
  return corePythonRepr(value, { numbers: 'guess' });
}

/** A Python `dict`: insertion-ordered; re-assigning a key keeps its first position and its first key object. */
export class PyDict {
  /** Hash key -> [key, value]. */
  readonly entries = new Map<string, [PyValue, PyValue]>();

  /** Sets `key`; throws {@link PyTypeError} when the key is unhashable (a list, dict or set). */
  set(key: PyValue, value: PyValue): void {
    const h = hashKey(key);
    if (h === undefined) throw new PyTypeError(`unhashable type: '${typeName(key)}'`);
    const existing = this.entries.get(h);
    if (existing) existing[1] = value;
    else this.entries.set(h, [key, value]);
  }

  get(key: PyValue): PyValue | undefined {
    const h = hashKey(key);
    return h === undefined ? undefined : this.entries.get(h)?.[1];
  }

  has(key: PyValue): boolean {
    const h = hashKey(key);
    return h !== undefined && this.entries.has(h);
  }

  keys(): PyValue[] {
    return [...this.entries.values()].map((e) => e[0]);
  }

  items(): Array<[PyValue, PyValue]> {
    return [...this.entries.values()].map((e) => [e[0], e[1]]);
  }

  get size(): number {
    return this.entries.size;
  }

  [pythonReprSymbol](repr: (value: unknown) => string): string {
    return `{${this.items()
      .map(([k, v]) => `${repr(k)}: ${repr(v)}`)
      .join(', ')}}`;
  }
}

/** A Python `tuple`. */
export class PyTuple {
  constructor(readonly items: PyValue[]) {}

  [pythonReprSymbol](repr: (value: unknown) => string): string {
    return this.items.length === 1 ? `(${repr(this.items[0])},)` : `(${this.items.map(repr).join(', ')})`;
  }
}

/** A Python `set` (insertion order kept for display; Python's own order is arbitrary). */
export class PySet {
  readonly members = new Map<string, PyValue>();
  add(value: PyValue): void {
    const h = hashKey(value);
    if (h === undefined) throw new PyTypeError(`unhashable type: '${typeName(value)}'`);
    if (!this.members.has(h)) this.members.set(h, value);
  }
  get items(): PyValue[] {
    return [...this.members.values()];
  }

  [pythonReprSymbol](repr: (value: unknown) => string): string {
    return this.members.size === 0 ? 'set()' : `{${this.items.map(repr).join(', ')}}`;
  }
}

/** Values the port keeps but never inspects: `bytes`, `complex`, `Ellipsis`. `text` is their Python `repr`. */
export class PyOpaque {
  constructor(
    readonly kind: 'bytes' | 'complex' | 'ellipsis',
    readonly text: string,
  ) {}

  [pythonReprSymbol](): string {
    return this.text;
  }
}

export type PyValue = string | number | boolean | null | PyValue[] | PyDict | PyTuple | PySet | PyOpaque;

/** A Python `TypeError` (e.g. an unhashable dict key) raised while building a value. */
export class PyTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PyTypeError';
  }
}

/** Python type name of a value, for messages. */
export function typeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (Array.isArray(v)) return 'list';
  if (v instanceof PyDict) return 'dict';
  if (v instanceof PyTuple) return 'tuple';
  if (v instanceof PySet) return 'set';
  return v.kind;
}

/** Python-equality hash key: equal for `1`, `1.0`, `True`; `undefined` for unhashable values. */
export function hashKey(v: PyValue): string | undefined {
  if (typeof v === 'string') return `s${v}`;
  if (typeof v === 'number') return `n${Object.is(v, -0) ? 0 : v}`;
  if (typeof v === 'boolean') return v ? 'n1' : 'n0';
  if (v === null) return 'N';
  if (v instanceof PyTuple) {
    const parts: string[] = [];
    for (const item of v.items) {
      const h = hashKey(item);
      if (h === undefined) return undefined;
      parts.push(JSON.stringify(h));
    }
    return `t(${parts.join(',')})`;
  }
  if (v instanceof PyOpaque) return `o${v.kind}:${v.text}`;
  return undefined;
}

/**
 * Converts to plain JSON-like JavaScript (dict -> object with `str()` keys, tuple/set -> array, opaque -> its repr).
 * For display and comparisons; the order of integer-like keys is the JavaScript one.
 */
export function toPlain(v: PyValue): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof PyDict) {
    const out: Record<string, unknown> = {};
    for (const [k, val] of v.items()) out[typeof k === 'string' ? k : String(toPlain(k))] = toPlain(val);
    return out;
  }
  if (v instanceof PyTuple) return v.items.map(toPlain);
  if (v instanceof PySet) return v.items.map(toPlain);
  return v.text;
}

/** Builds a {@link PyDict} from a plain object or a `Map` (in their iteration order). */
export function pyDictFrom(value: Record<string, PyValue> | Map<string, PyValue>): PyDict {
  const d = new PyDict();
  const entries = value instanceof Map ? value.entries() : Object.entries(value);
  for (const [k, v] of entries) d.set(k, v);
  return d;
}
