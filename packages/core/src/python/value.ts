/**
 * Python values as `ast.literal_eval`/`eval` of a literal produce them ({@link evalPythonLiteral}), with Python's
 * semantics where they differ from JavaScript: dicts keep insertion order for every key (JS objects move
 * integer-like keys first), keys are compared by Python equality (`1 == 1.0 == True`), tuples and sets exist.
 * Numbers do not keep the int/float distinction: render them with `pythonRepr(v, { numbers: 'guess' })`.
 */
import { pythonReprSymbol } from './json';

/** A Python `dict` (CPython 3.7+ semantics): insertion-ordered; re-assigning a key keeps its first position and its first key object. */
export class PyLiteralDict {
  /** Hash key -> [key, value]. */
  readonly entries = new Map<string, [PyLiteral, PyLiteral]>();

  /** Sets `key`; throws {@link PyTypeError} when the key is unhashable (a list, dict or set). */
  set(key: PyLiteral, value: PyLiteral): void {
    const h = pythonHashKey(key);
    if (h === undefined) throw new PyTypeError(`unhashable type: '${pythonTypeName(key)}'`);
    const existing = this.entries.get(h);
    if (existing) existing[1] = value;
    else this.entries.set(h, [key, value]);
  }

  get(key: PyLiteral): PyLiteral | undefined {
    const h = pythonHashKey(key);
    return h === undefined ? undefined : this.entries.get(h)?.[1];
  }

  has(key: PyLiteral): boolean {
    const h = pythonHashKey(key);
    return h !== undefined && this.entries.has(h);
  }

  keys(): PyLiteral[] {
    return [...this.entries.values()].map((e) => e[0]);
  }

  items(): Array<[PyLiteral, PyLiteral]> {
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
  constructor(readonly items: PyLiteral[]) {}

  [pythonReprSymbol](repr: (value: unknown) => string): string {
    return this.items.length === 1 ? `(${repr(this.items[0])},)` : `(${this.items.map(repr).join(', ')})`;
  }
}

/** A Python `set` (insertion order kept for display; Python's own order is arbitrary). */
export class PySet {
  readonly members = new Map<string, PyLiteral>();
  add(value: PyLiteral): void {
    const h = pythonHashKey(value);
    if (h === undefined) throw new PyTypeError(`unhashable type: '${pythonTypeName(value)}'`);
    if (!this.members.has(h)) this.members.set(h, value);
  }
  get items(): PyLiteral[] {
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

export type PyLiteral = string | number | boolean | null | PyLiteral[] | PyLiteralDict | PyTuple | PySet | PyOpaque;

/** A Python `TypeError` (e.g. an unhashable dict key) raised while building a value. */
export class PyTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PyTypeError';
  }
}

/** Python type name of a value, for messages. */
export function pythonTypeName(v: PyLiteral): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (Array.isArray(v)) return 'list';
  if (v instanceof PyLiteralDict) return 'dict';
  if (v instanceof PyTuple) return 'tuple';
  if (v instanceof PySet) return 'set';
  return v.kind;
}

/** Python-equality hash key: equal for `1`, `1.0`, `True`; `undefined` for unhashable values. */
export function pythonHashKey(v: PyLiteral): string | undefined {
  if (typeof v === 'string') return `s${v}`;
  if (typeof v === 'number') return `n${Object.is(v, -0) ? 0 : v}`;
  if (typeof v === 'boolean') return v ? 'n1' : 'n0';
  if (v === null) return 'N';
  if (v instanceof PyTuple) {
    const parts: string[] = [];
    for (const item of v.items) {
      const h = pythonHashKey(item);
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
export function literalToPlain(v: PyLiteral): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(literalToPlain);
  if (v instanceof PyLiteralDict) {
    const out: Record<string, unknown> = {};
    for (const [k, val] of v.items()) out[typeof k === 'string' ? k : String(literalToPlain(k))] = literalToPlain(val);
    return out;
  }
  if (v instanceof PyTuple) return v.items.map(literalToPlain);
  if (v instanceof PySet) return v.items.map(literalToPlain);
  return v.text;
}

/** Builds a {@link PyLiteralDict} from a plain object or a `Map` (in their iteration order). */
export function pyDictFrom(value: Record<string, PyLiteral> | Map<string, PyLiteral>): PyLiteralDict {
  const d = new PyLiteralDict();
  const entries = value instanceof Map ? value.entries() : Object.entries(value);
  for (const [k, v] of entries) d.set(k, v);
  return d;
}
