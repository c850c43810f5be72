/**
 * mwzeval's venue database (`MultiWOZVenueDatabase`): the four searchable domains, the column clean-up, and `query`
 * with fuzzy matching of names/food/places. Spec: shared/specs/multiwoz.md § 7.2.
 *
 * Same results as the reference, computed differently: one bit mask per (column, constraint value) is computed once
 * (each distinct database value is scored once per constraint) and whole queries are memoised.
 */
import { EvalError } from '@eval/core';
import { type CharProfile, charProfile, partialRatioReaches } from './fuzzy';
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
  /** Item indices passing an exact/fuzzy constraint, per (column, value). */
  masks: Map<string, { list: Int32Array; mask: Uint8Array }>;
  /** Character profiles of the values of fuzzy columns, computed once. */
  profiles: Map<string, CharProfile>;
  /** Minutes of the `arrive`/`leave` columns (time_str_to_minutes), computed once; NaN for unconstrained items. */
  minutes: Map<string, Float64Array>;
  /** Per column: the items of each distinct value, and the items without a constraint there (column missing or "?"). */
  columns: Map<string, ColumnIndex>;
}

interface ColumnIndex {
  groups: Map<unknown, number[]>;
  /** The distinct values and their items, in the order of `groups` (iterated without an iterator). */
  values: unknown[];
  items: number[][];
  free: number[];
}

export interface VenueDatabaseOptions {
  /** Normalisation rules applied to constraint values (default `"2022"`). */
  normalization?: NormalizationVersion;
  /** Minimum `partial_ratio` of a fuzzy column (default 90, as the reference). */
  fuzzyRatio?: number;
}

/** Raw database files: domain -> the JSON array of `<domain>_db.json`. */
export type RawDatabase = Record<DbDomain, unknown[]>;

const NO_VENUES: readonly string[] = Object.freeze([]);

export class VenueDatabase {
  readonly normalization: NormalizationVersion;
  readonly fuzzyRatio: number;
  private readonly tables = new Map<DbDomain, Table>();
  private readonly queryCache = new Map<string, string[]>();
  /** Column -> raw constraint value -> normalised value (normalizeStateSlotValue is a pure function of both). */
  private readonly valueCache = new Map<string, Map<string, string>>();

  constructor(raw: RawDatabase, options: VenueDatabaseOptions = {}) {
    this.normalization = options.normalization ?? '2022';
    this.fuzzyRatio = options.fuzzyRatio ?? 90;
    for (const domain of DB_DOMAINS) {
      const rows = raw[domain];
      if (!Array.isArray(rows) || rows.length === 0) {
        throw new EvalError('invalid_data', `database ${domain}_db.json must be a non-empty JSON array`);
      }
      const ignore = IGNORE_VALUES[domain] ?? [];
      // raw key -> column name, or null for an ignored key (the rows share a handful of keys)
      const columnOf = new Map<string, string | null>();
      const items = rows.map((row, i) => {
        if (typeof row !== 'object' || row === null || Array.isArray(row)) {
          throw new EvalError('invalid_data', `database ${domain}_db.json: item ${i} is not an object`);
        }
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(row)) {
          let column = columnOf.get(k);
          if (column === undefined) columnOf.set(k, (column = ignore.includes(k) ? null : normalizeColumnName(k)));
          if (column === null) continue;
          out[column] = (row as Record<string, unknown>)[k];
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
      this.tables.set(domain, {
        items,
        keys: Object.keys(items[0]!),
        ids,
        masks: new Map(),
        profiles: new Map(),
        minutes: new Map(),
        columns: new Map(),
      });
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

  /** Minutes of a time column per item; NaN where the item does not constrain (column missing or "?"), which passes every comparison. */
  private columnMinutes(table: Table, key: string): Float64Array {
    let out = table.minutes.get(key);
    if (!out) {
      out = new Float64Array(table.items.length);
      for (let i = 0; i < table.items.length; i++) {
        const item = table.items[i]!;
        const v = item[key];
        // (computed for "?" too, as before: the same errors, if any)
        out[i] = typeof v === 'string' ? timeStrToMinutes(v) : Number.NaN;
        if (!(key in item) || v === '?') out[i] = Number.NaN;
      }
      table.minutes.set(key, out);
    }
    return out;
  }

  private columnIndex(table: Table, key: string): ColumnIndex {
    let index = table.columns.get(key);
    if (!index) {
      index = { groups: new Map(), values: [], items: [], free: [] };
      for (let i = 0; i < table.items.length; i++) {
        const item = table.items[i]!;
        // A missing column is treated like "?" (unconstrained); the reference raises KeyError there.
        if (!(key in item) || item[key] === '?') {
          index.free.push(i);
          continue;
        }
        const v = item[key];
        const group = index.groups.get(v);
        if (group) group.push(i);
        else {
          const items = [i];
          index.groups.set(v, items);
          index.values.push(v);
          index.items.push(items);
        }
      }
      table.columns.set(key, index);
    }
    return index;
  }

  /** Item indices (ascending) that pass an exact or fuzzy column constraint; "?" and missing columns always pass. */
  private matching(domain: DbDomain, table: Table, key: string, value: string): { list: Int32Array; mask: Uint8Array } {
    const cacheKey = `${key}\u0000${value}`;
    const hit = table.masks.get(cacheKey);
    if (hit) return hit;
    const index = this.columnIndex(table, key);
    const mask = new Uint8Array(table.items.length);
    const free = index.free;
    for (let k = 0; k < free.length; k++) mask[free[k]!] = 1;
    if (!FUZZY_KEYS[domain].has(key)) {
      const group = index.groups.get(value);
      if (group) for (let k = 0; k < group.length; k++) mask[group[k]!] = 1;
    } else {
      // each distinct database value is scored once
      const constraintProfile = charProfile(value);
      for (let g = 0; g < index.values.length; g++) {
        const v = index.values[g];
        if (typeof v !== 'string') continue;
        let profile = table.profiles.get(v);
        if (!profile) table.profiles.set(v, (profile = charProfile(v)));
        if (partialRatioReaches(v, profile, value, constraintProfile, this.fuzzyRatio)) {
          const group = index.items[g]!;
          for (let k = 0; k < group.length; k++) mask[group[k]!] = 1;
        }
      }
    }
    let count = 0;
    for (let i = 0; i < mask.length; i++) count += mask[i]!;
    const list = new Int32Array(count);
    for (let i = 0, k = 0; i < mask.length; i++) if (mask[i] === 1) list[k++] = i;
    const entry = { list, mask };
    table.masks.set(cacheKey, entry);
    return entry;
  }

  /**
   * `query(domain, constraints)`: ids (train ids for trains) of the items that satisfy every constraint on a database
   * column, in database order. Constraint values are normalised again (as the reference does); `dontcare`-like values
   * and non-column keys are ignored; `arrive`/`leave` compare minutes; fuzzy columns need `partial_ratio >= 90`.
   * Returns [] for domains without a database. Throws `PythonValueError` where the reference's time parsing raises.
   */
  query(domain: string, constraints: Readonly<Record<string, string>>): string[] {
    return this.sharedQuery(domain, constraints).slice();
  }

  /** {@link VenueDatabase.query} without the copy: the memoised array itself, shared by equal queries (never mutate it). */
  sharedQuery(domain: string, constraints: Readonly<Record<string, string>>): readonly string[] {
    if (!isDbDomain(domain)) return NO_VENUES;
    const table = this.tables.get(domain)!;
    // Memoised on the raw values of the constrained columns (normalisation is a pure function of them).
    const keys = table.keys;
    let rawKey = domain;
    for (let c = 0; c < keys.length; c++) {
      const key = keys[c]!;
      if (Object.hasOwn(constraints, key)) rawKey += `\u0001${key}\u0000${constraints[key]}`;
    }
    const cached = this.queryCache.get(rawKey);
    if (cached) return cached;
    const lists: Array<{ list: Int32Array; mask: Uint8Array }> = [];
    const times: Array<['arrive' | 'leave', number]> = [];
    for (let c = 0; c < keys.length; c++) {
      const key = keys[c]!;
      if (!Object.hasOwn(constraints, key)) continue;
      const raw = constraints[key]!;
      if (DONTCARE.has(raw)) continue;
      let values = this.valueCache.get(key);
      if (values === undefined) this.valueCache.set(key, (values = new Map()));
      let v = values.get(raw);
      if (v === undefined) values.set(raw, (v = normalizeStateSlotValue(key, raw, this.normalization)));
      if (key === 'arrive' || key === 'leave') times.push([key, timeStrToMinutes(v)]);
      else lists.push(this.matching(domain, table, key, v));
    }
    // candidates: the shortest index list (or every item), filtered by the other constraints
    // stable insertion sort by length (a few lists)
    for (let x = 1; x < lists.length; x++) {
      const item = lists[x]!;
      let y = x - 1;
      while (y >= 0 && lists[y]!.list.length > item.list.length) {
        lists[y + 1] = lists[y]!;
        y--;
      }
      lists[y + 1] = item;
    }
    const n = table.items.length;
    const first = lists[0]?.list;
    const rest = lists.slice(1).map((l) => l.mask);
    const minutes = times.map(([key]) => this.columnMinutes(table, key));
    const atMost = times.map(([key]) => key === 'arrive');
    const out: string[] = [];
    const count = first ? first.length : n;
    outer: for (let k = 0; k < count; k++) {
      const i = first ? first[k]! : k;
      for (let r = 0; r < rest.length; r++) if (rest[r]![i] === 0) continue outer;
      // the reference compares time_str_to_minutes(item) with the constraint's minutes: `arrive` at most, `leave` at
      // least; unconstrained items (NaN) pass
      for (let t = 0; t < times.length; t++) {
        const m = minutes[t]![i]!;
        if (atMost[t] ? m > times[t]![1] : m < times[t]![1]) continue outer;
      }
      out.push(table.ids[i]!);
    }
    this.queryCache.set(rawKey, out);
    return out;
  }
}
