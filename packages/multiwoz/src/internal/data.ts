/**
 * The evaluator's data: venue database, goals, booked domains, BLEU references, gold states. Read from a directory in
 * mwzeval's own `mwzeval/data/` layout (or the fetched `multiwoz` resource set), or given in memory.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, type ReadOptions, ResourceMissingError, readJson, resolveResourceDir, validate } from '@eval/core';
import type { z } from 'zod';
import { DB_DOMAINS, type RawDatabase } from './database';
import type { BeliefState, NormalizationVersion } from './normalize';
import { bookedDomainsSchema, goalSchema, goldStatesSchema, referencesSchema } from '../schemas';
import type { Goal } from '../metrics/success';

const goalTable = goalSchema as z.ZodType<Goal>;

/** Name of the resource set (`dialeval resources fetch multiwoz`). */
export const MULTIWOZ_RESOURCE = 'multiwoz';

/** Relative paths inside a data directory (mwzeval's `mwzeval/data/` layout). */
export const DATA_FILES = {
  database: (domain: string) => `database/${domain}_db.json`,
  /** The v2022 restaurant database (3 fewer phone numbers); used in 2022 mode when present. */
  databaseRestaurantV2022: 'database/restaurant_db.v2022.json',
  goals: 'goals.json',
  bookedDomains: 'booked_domains.json',
  references: (name: string) => `references/${name}.json`,
  goldStates: 'gold_states.json',
  /** Gold states normalised with the v2023 rules (written by the resource's prepare step); used in 2023 mode when present. */
  goldStatesV2023: 'gold_states.v2023.json',
} as const;

/**
 * A dialogue-keyed table whose entries are validated (zod) when first used: only the dialogues being evaluated are
 * checked, and errors name the file, the dialogue id and the field.
 */
export class DialogueTable<T> {
  private readonly cache = new Map<string, T>();
  constructor(
    private readonly raw: Record<string, unknown>,
    private readonly schema: z.ZodType<T>,
    /** File (or label) named in errors. */
    readonly source: string,
  ) {}

  has(id: string): boolean {
    return Object.hasOwn(this.raw, id);
  }

  get(id: string): T | undefined {
    const hit = this.cache.get(id);
    if (hit !== undefined) return hit;
    if (!this.has(id)) return undefined;
    const value = validate(this.schema, this.raw[id], { file: this.source, record: id });
    this.cache.set(id, value);
    return value;
  }

  get size(): number {
    return Object.keys(this.raw).length;
  }

  ids(): string[] {
    return Object.keys(this.raw);
  }
}

function table<T>(value: unknown, schema: z.ZodType<T>, source: string): DialogueTable<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError('expected a JSON object keyed by dialogue id', { file: source });
  }
  return new DialogueTable(value as Record<string, unknown>, schema, source);
}

/** Everything the evaluator may need; each part is only required by the metrics that use it. */
export interface MultiwozData {
  /** Raw `<domain>_db.json` arrays of restaurant, attraction, hotel, train. */
  database?: RawDatabase;
  /** goals.json: dialogue id -> goal. */
  goals?: DialogueTable<Goal>;
  /** booked_domains.json: dialogue id -> per system turn, the domains booked so far. */
  bookedDomains?: DialogueTable<string[][]>;
  /** BLEU reference sets: name (`mwz22`, ...) -> dialogue id -> normalised reference per system turn. */
  references?: Record<string, DialogueTable<string[]>>;
  /** gold_states.json: dialogue id -> normalised gold state per system turn. */
  goldStates?: DialogueTable<BeliefState[]>;
}

/** Plain in-memory objects (e.g. parsed JSON) turned into {@link MultiwozData}. */
export function multiwozDataFrom(parts: {
  database?: RawDatabase;
  goals?: Record<string, unknown>;
  bookedDomains?: Record<string, unknown>;
  references?: Record<string, Record<string, unknown>>;
  goldStates?: Record<string, unknown>;
}): MultiwozData {
  return {
    database: parts.database,
    goals: parts.goals ? table(parts.goals, goalTable, 'goals') : undefined,
    bookedDomains: parts.bookedDomains ? table(parts.bookedDomains, bookedDomainsSchema, 'booked domains') : undefined,
    references: parts.references
      ? Object.fromEntries(
          Object.entries(parts.references).map(([k, v]) => [k, table(v, referencesSchema, `references ${k}`)]),
        )
      : undefined,
    goldStates: parts.goldStates ? table(parts.goldStates, goldStatesSchema, 'gold states') : undefined,
  };
}

export interface ReadDataOptions {
  /** Data directory; default: resolved like every resource set (`--data`, `DIALEVAL_MULTIWOZ_DIR`, fetched cache). */
  dir?: string;
  /** Load what BLEU needs (references). */
  bleu?: boolean;
  /** Load what Inform/Success needs (database, goals, booked domains). */
  success?: boolean;
  /** Load the gold states (DST, or Success on predictions without states). */
  goldStates?: boolean;
  /** Reference sets for BLEU (default `["mwz22"]`). */
  references?: string[];
  /** Picks `restaurant_db.v2022.json` / `gold_states.v2023.json` when present (default `"2022"`). */
  normalization?: NormalizationVersion;
  /** Flag named in "missing data" messages (the CLI passes `--data`). */
  flag?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Called with each data file's path and bytes as read (`ReadOptions.onRead`: a run record hashes them). */
  onRead?: ReadOptions['onRead'];
}

/** The files (relative to the data directory) that a metric selection needs. */
export function requiredDataFiles(
  options: Pick<ReadDataOptions, 'bleu' | 'success' | 'goldStates' | 'references'>,
): string[] {
  const files: string[] = [];
  if (options.bleu) for (const r of options.references ?? ['mwz22']) files.push(DATA_FILES.references(r));
  if (options.success) {
    for (const d of DB_DOMAINS) files.push(DATA_FILES.database(d));
    files.push(DATA_FILES.goals, DATA_FILES.bookedDomains);
  }
  if (options.goldStates) files.push(DATA_FILES.goldStates);
  return files;
}

/** Resolves the data directory (explicit, `DIALEVAL_MULTIWOZ_DIR`, fetched cache) and checks that `required` exist. */
export function resolveMultiwozDataDir(
  options: { dir?: string; required?: string[]; flag?: string; env?: NodeJS.ProcessEnv; home?: string } = {},
): Promise<string> {
  return resolveResourceDir(MULTIWOZ_RESOURCE, {
    dir: options.dir,
    required: options.required,
    flag: options.flag ?? '--data',
    env: options.env,
    home: options.home,
  });
}

/** Reads the parts of a data directory that the selected metrics need. */
export async function readMultiwozData(options: ReadDataOptions = {}): Promise<MultiwozData> {
  const required = requiredDataFiles(options);
  const dir = await resolveMultiwozDataDir({
    dir: options.dir,
    required,
    flag: options.flag,
    env: options.env,
    home: options.home,
  });
  const data: MultiwozData = {};
  const read = (rel: string) =>
    readJson(join(dir, rel), undefined, options.onRead ? { onRead: options.onRead } : undefined);
  if (options.success) {
    const database = {} as RawDatabase;
    for (const d of DB_DOMAINS) {
      let rel: string = DATA_FILES.database(d);
      if (
        d === 'restaurant' &&
        (options.normalization ?? '2022') === '2022' &&
        existsSync(join(dir, DATA_FILES.databaseRestaurantV2022))
      ) {
        rel = DATA_FILES.databaseRestaurantV2022;
      }
      const rows = await read(rel);
      if (!Array.isArray(rows)) throw new InputError('expected a JSON array of venues', { file: join(dir, rel) });
      database[d] = rows;
    }
    data.database = database;
    data.goals = table(await read(DATA_FILES.goals), goalTable, join(dir, DATA_FILES.goals));
    data.bookedDomains = table(
      await read(DATA_FILES.bookedDomains),
      bookedDomainsSchema,
      join(dir, DATA_FILES.bookedDomains),
    );
  }
  if (options.bleu) {
    data.references = {};
    for (const r of options.references ?? ['mwz22']) {
      data.references[r] = table(
        await read(DATA_FILES.references(r)),
        referencesSchema,
        join(dir, DATA_FILES.references(r)),
      );
    }
  }
  if (options.goldStates) {
    const rel =
      options.normalization === '2023' && existsSync(join(dir, DATA_FILES.goldStatesV2023))
        ? DATA_FILES.goldStatesV2023
        : DATA_FILES.goldStates;
    data.goldStates = table(await read(rel), goldStatesSchema, join(dir, rel));
  }
  return data;
}

/** Throws the "data missing" error for a part the evaluator needs but was not given. */
export function missingData(part: string, file: string): never {
  throw new ResourceMissingError(
    MULTIWOZ_RESOURCE,
    `MultiWOZ ${part} (${file}) not loaded; run \`dialeval resources fetch ${MULTIWOZ_RESOURCE}\`, or pass --data DIR (mwzeval's data/ layout), or set DIALEVAL_MULTIWOZ_DIR`,
  );
}
