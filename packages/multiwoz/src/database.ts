/**
 * mwzeval's venue database (`MultiWOZVenueDatabase`): the four searchable domains, the column clean-up, and `query`
 * with fuzzy matching of names/food/places. Spec: shared/specs/multiwoz.md § 7.2.
 *
 * Same results as the reference, computed differently: one bit mask per (column, constraint value) is computed once
 * (each distinct database value is scored once per constraint) and whole queries are memoised.
 */
import { EvalError } from '@eval/core';
import { partialRatioAtLeast } from './fuzzy';
import { type NormalizationVersion, normalizeStateSlotValue, timeStrToMinutes } from './normalize';

export const DB_DOMAINS = ['restaurant', 'attraction', 'hotel', 'train'] as const;
export type DbDomain = (typeof DB_DOMAINS)[number];

const IGNORE_VALUES: Record<string, string[]> = {
  attraction: ['location', 'openhours'],
  hotel: ['location', 'price', 'takesbookings'],
  restaurant: ['location', 'introduction', 'signature'],
};

export const FUZZY_KEYS: Record<DbDomain, ReadonlySet<string>> = {
  hotel: new Set(['name']),
  attraction: new Set(['name']),
  restaurant: new Set(['name', 'food']),
  train: new Set(['departure', 'destination']),
};

const DONTCARE = new Set(['dontcare', 'not mentioned', "don't care", 'dont care', "do n't care", 'do not care']);

function normalizeColumnName(name: string): string {
  if (name === 'id') return name;
  const n = name.toLowerCase().split(' ').join('');
  if (n === 'arriveby') return 'arrive';
  if (n === 'leaveat') return 'leave';
  return n;
}

export function isDbDomain(domain: string): domain is DbDomain {
  return (DB_DOMAINS as readonly string[]).includes(domain);
}

interface Table {
  items: Array<Record<string, unknown>>;
  keys: string[];
  ids: string[];
  masks: Map<string, Uint8Array>;
  /** Minutes of the `arrive`/`leave` columns (time_str_to_minutes), computed once. */
  minutes: Map<string, Float64Array>;
}

export interface VenueDatabaseOptions {
  /** Normalisation rules applied to constraint values (default `"2022"`). */
  normalization?: NormalizationVersion;
  /** Minimum `partial_ratio` of a fuzzy column (default 90, as the reference). */
  fuzzyRatio?: number;
}

/** Raw database files: domain -> the JSON array of `<domain>_db.json`. */
export type RawDatabase = Record<DbDomain, unknown[]>;

export class VenueDatabase {
  readonly normalization: NormalizationVersion;
  readonly fuzzyRatio: number;
  private readonly tables = new Map<DbDomain, Table>();
  private readonly queryCache = new Map<string, string[]>();

  constructor(raw: RawDatabase, options: VenueDatabaseOptions = {}) {
    this.normalization = options.normalization ?? '2022';
    this.fuzzyRatio = options.fuzzyRatio ?? 90;
    for (const domain of DB_DOMAINS) {
      const rows = raw[domain];
      if (!Array.isArray(rows) || rows.length === 0) {
        throw new EvalError('invalid_data', `database ${domain}_db.json must be a non-empty JSON array`);
      }
      const ignore = IGNORE_VALUES[domain] ?? [];
      const items = rows.map((row, i) => {
        if (typeof row !== 'object' || row === null || Array.isArray(row)) {
          throw new EvalError('invalid_data', `database ${domain}_db.json: item ${i} is not an object`);
        }
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(row)) {
          if (ignore.includes(k)) continue;
          out[normalizeColumnName(k)] = v;
        }
        return out;
      });
      const idKey = domain === 'train' ? 'trainid' : 'id';
      const ids = items.map((item, i) => {
        const id = item[idKey];
        if (typeof id !== 'string' && typeof id !== 'number') {
          throw new EvalError('invalid_data', `database ${domain}_db.json: item ${i} has no "${idKey}"`);
        }
        return String(id);
      });
      this.tables.set(domain, { items, keys: Object.keys(items[0]!), ids, masks: new Map(), minutes: new Map() });
    }
  }

  /** The searchable columns of a domain (the keys of its first item after clean-up). */
  columns(domain: DbDomain): readonly string[] {
    return this.tables.get(domain)!.keys;
  }

  /** Number of items of a domain. */
  size(domain: DbDomain): number {
    return this.tables.get(domain)!.items.length;
  }

  private columnMinutes(table: Table, key: string): Float64Array {
    let out = table.minutes.get(key);
    if (!out) {
      out = new Float64Array(table.items.length);
      table.items.forEach((item, i) => {
        const v = item[key];
        out![i] = typeof v === 'string' ? timeStrToMinutes(v) : Number.NaN;
      });
      table.minutes.set(key, out);
    }
    return out;
  }

  private mask(domain: DbDomain, table: Table, key: string, value: string | number): Uint8Array {
    const cacheKey = `${key}\u0000${typeof value}\u0000${value}`;
    let mask = table.masks.get(cacheKey);
    if (mask) return mask;
    const n = table.items.length;
    mask = new Uint8Array(n);
    const fuzzy = FUZZY_KEYS[domain].has(key);
    const minutes = key === 'arrive' || key === 'leave' ? this.columnMinutes(table, key) : undefined;
    const perValue = new Map<unknown, number>();
    for (let i = 0; i < n; i++) {
      const item = table.items[i]!;
      // A missing column is treated like "?" (unconstrained); the reference raises KeyError there.
      if (!(key in item)) {
        mask[i] = 1;
        continue;
      }
      const v = item[key];
      if (v === '?') {
        mask[i] = 1;
        continue;
      }
      if (minutes) {
        // the reference compares time_str_to_minutes(item) with the constraint's minutes
        const t = minutes[i]!;
        mask[i] = key === 'arrive' ? (t > (value as number) ? 0 : 1) : t < (value as number) ? 0 : 1;
        continue;
      }
      let keep = perValue.get(v);
      if (keep === undefined) {
        if (fuzzy) keep = typeof v === 'string' && partialRatioAtLeast(v, value as string, this.fuzzyRatio) ? 1 : 0;
        else keep = v === value ? 1 : 0;
        perValue.set(v, keep);
      }
      mask[i] = keep;
    }
    table.masks.set(cacheKey, mask);
    return mask;
  }

  /**
   * `query(domain, constraints)`: ids (train ids for trains) of the items that satisfy every constraint on a database
   * column, in database order. Constraint values are normalised again (as the reference does); `dontcare`-like values
   * and non-column keys are ignored; `arrive`/`leave` compare minutes; fuzzy columns need `partial_ratio >= 90`.
   * Returns [] for domains without a database. Throws `PythonValueError` where the reference's time parsing raises.
   */
  query(domain: string, constraints: Readonly<Record<string, string>>): string[] {
    if (!isDbDomain(domain)) return [];
    const table = this.tables.get(domain)!;
    // Memoised on the raw values of the constrained columns (normalisation is a pure function of them).
    let rawKey = domain;
    for (const key of table.keys) {
      if (Object.prototype.hasOwnProperty.call(constraints, key)) rawKey += `\u0001${key}\u0000${constraints[key]}`;
    }
    const cached = this.queryCache.get(rawKey);
    if (cached) return cached.slice();
    const masks: Uint8Array[] = [];
    for (const key of table.keys) {
      if (!Object.prototype.hasOwnProperty.call(constraints, key)) continue;
      const raw = constraints[key]!;
      if (DONTCARE.has(raw)) continue;
      const v = normalizeStateSlotValue(key, raw, this.normalization);
      masks.push(this.mask(domain, table, key, key === 'arrive' || key === 'leave' ? timeStrToMinutes(v) : v));
    }
    const out: string[] = [];
    const n = table.items.length;
    outer: for (let i = 0; i < n; i++) {
      for (const m of masks) if (m[i] === 0) continue outer;
      out.push(table.ids[i]!);
    }
    this.queryCache.set(rawKey, out);
    return out.slice();
  }
}
