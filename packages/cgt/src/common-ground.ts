import { EvalError, InputError, parseCsv, readText } from '@eval/core';
import { pythonFloatRepr, PY_WHITESPACE, pyStrip } from '@eval/core/python';
import type { Weights } from './normalize';

/** The five blocks of the Weights Task, in the reference's order. */
export const COLORS = ['red', 'blue', 'green', 'purple', 'yellow'] as const;
export type Color = (typeof COLORS)[number];

/** The candidate weights of every block. */
export const WEIGHTS: readonly number[] = [10, 20, 30, 40, 50];

export type CgType = 'STATEMENT' | 'ACCEPT' | null;
export type CgMove = 'STATEMENT' | 'ACCEPT';

/** A problem in an annotation that makes the reference crash (empty sums, unknown statement id). */
export class CommonGroundError extends EvalError {
  constructor(message: string) {
    super('input_common_ground', message);
    this.name = 'CommonGroundError';
  }
}

const S = `[${PY_WHITESPACE}]`;
const AND_SPLIT = new RegExp(`${S}+and${S}+`);
const PROP_RE = new RegExp(`^(red|blue|green|yellow|purple)${S}*(=|<|>|!=)${S}*([^\\n]*)`);
const WEIGHT_RE = /10|20|30|40|50/;
const BLOCK_RE = /red|blue|green|yellow|purple/g;

function sums(sets: ReadonlyArray<ReadonlySet<number>>): Set<number> {
  let acc = new Set<number>([0]);
  for (const set of sets) {
    const next = new Set<number>();
    for (const a of acc) for (const x of set) next.add(a + x);
    acc = next;
  }
  return acc;
}

function maxOf(set: ReadonlySet<number>): number {
  if (set.size === 0)
    throw new CommonGroundError('max() of an empty set of possible sums (the reference raises ValueError)');
  return Math.max(...set);
}

function minOf(set: ReadonlySet<number>): number {
  if (set.size === 0)
    throw new CommonGroundError('min() of an empty set of possible sums (the reference raises ValueError)');
  return Math.min(...set);
}

const sorted = (set: ReadonlySet<number>) => [...set].sort((a, b) => a - b);

/** An immutable copy of the common ground at one time: the banks and the per-block sets. */
export interface CommonGroundSnapshot {
  cgType: CgType;
  /** Facts: `"c=w"` for every block with exactly one possible weight, in color order. */
  fbank: string[];
  /** Evidence: `"c=w"` / `"c!=w"` for blocks not in the FBank. */
  ebank: string[];
  /** Open questions: `"c=w"` for possible weights without evidence, blocks not in the FBank. */
  qbank: string[];
  possible: Record<Color, number[]>;
  evidenceFor: Record<Color, number[]>;
  evidenceAgainst: Record<Color, number[]>;
}

/**
 * The CommonGround state machine of mmdp-cgt (`ingest/common_ground.py`): per block the possible weights and the
 * evidence for and against them, updated by STATEMENT (adds evidence) and ACCEPT (removes impossible weights) moves.
 * Its quirks are kept on purpose, because the recorded gold depends on them: the swap rule (the relation is not
 * mirrored), aliasing of the three sets on `ACCEPT(a = b)`, and re-adding weights on `ACCEPT(a = b + c)`.
 */
export class CommonGround {
  cgType: CgType = null;
  private readonly poss = {} as Record<Color, Set<number>>;
  private readonly ef = {} as Record<Color, Set<number>>;
  private readonly ea = {} as Record<Color, Set<number>>;

  constructor() {
    for (const c of COLORS) {
      this.poss[c] = new Set(WEIGHTS);
      this.ef[c] = new Set();
      this.ea[c] = new Set();
    }
  }

  /** Applies a move to `content` (one or more propositions joined by ` and `). Other moves do nothing. */
  update(move: string, content: string): void {
    const { poss, ef, ea } = this;
    for (const prop of content.split(AND_SPLIT)) {
      const m = PROP_RE.exec(prop);
      if (!m) continue;
      let block = m[1] as Color;
      const relation = m[2]!;
      const rhs = m[3]!;
      const wm = WEIGHT_RE.exec(rhs);
      const w = wm ? Number(wm[0]) : 0;
      let rhsBlocks = (rhs.match(BLOCK_RE) ?? []) as Color[];
      if (rhsBlocks.length === 1) {
        const other = rhsBlocks[0]!;
        const known = (c: Color) => new Set([...ef[c], ...ea[c]]).size;
        if (
          poss[block].size < poss[other].size ||
          (poss[block].size === poss[other].size && known(block) > known(other))
        ) {
          rhsBlocks = [block];
          block = other;
        }
      }
      const possOf = () => sums(rhsBlocks.map((b) => poss[b]));
      /** For `<` / `>`: the weights outside the bound (a weight, or the max/min possible weight of the right-hand blocks). */
      const outsideBound = (): number[] => {
        let bound: (() => number) | undefined;
        if (w) bound = () => w;
        else if (rhsBlocks.length > 0) {
          const possible = possOf();
          // Evaluated lazily (only if the block has possible weights: the reference raises on an empty max/min then), once.
          let limit: number | undefined;
          bound = () => (limit ??= relation === '<' ? maxOf(possible) : minOf(possible));
        }
        if (!bound) return [];
        const keep = new Set([...poss[block]].filter((x) => (relation === '<' ? x < bound!() : x > bound!())));
        return WEIGHTS.filter((x) => !keep.has(x));
      };
      const discard = (x: number) => {
        poss[block].delete(x);
        ef[block].delete(x);
        ea[block].delete(x);
      };
      if (move === 'STATEMENT') {
        if (relation === '=') {
          if (w) ef[block].add(w);
          else if (rhsBlocks.length === 1) {
            const b0 = rhsBlocks[0]!;
            for (const x of [...ef[b0]]) ef[block].add(x);
            for (const x of [...ea[b0]]) ea[block].add(x);
          } else if (rhsBlocks.length > 1) {
            const possible = possOf();
            for (const x of WEIGHTS) if (!possible.has(x)) ea[block].add(x);
            const evidenced = sums(rhsBlocks.map((b) => ef[b]));
            for (const x of [...poss[block]]) if (evidenced.has(x)) ef[block].add(x);
          }
        } else if (relation === '<' || relation === '>') {
          for (const x of outsideBound()) ea[block].add(x);
        } else if (relation === '!=') {
          if (w) ea[block].add(w);
          else if (rhsBlocks.length > 0) {
            const possible = possOf();
            if (possible.size === 1) ea[block].add([...possible][0]!);
          }
        }
      } else if (move === 'ACCEPT') {
        if (relation === '=') {
          if (w) {
            for (const x of WEIGHTS) if (x !== w) discard(x);
            poss[block].add(w);
            ef[block].add(w);
            ea[block].delete(w);
          } else if (rhsBlocks.length === 1) {
            // Aliasing, as in the reference: both blocks now share the same three set objects.
            const b0 = rhsBlocks[0]!;
            poss[block] = poss[b0];
            ef[block] = ef[b0];
            ea[block] = ea[b0];
          } else if (rhsBlocks.length > 1) {
            const possible = possOf();
            for (const x of WEIGHTS) if (!possible.has(x)) discard(x);
            const kept = WEIGHTS.filter((x) => possible.has(x));
            for (const x of kept) {
              poss[block].add(x);
              if (kept.length === 1) {
                ef[block].add(x);
                ea[block].delete(x);
              }
            }
          }
        } else if (relation === '<' || relation === '>') {
          for (const x of outsideBound()) discard(x);
        } else if (relation === '!=') {
          if (w) discard(w);
          else if (rhsBlocks.length > 0) {
            const possible = possOf();
            if (possible.size === 1) discard([...possible][0]!);
          }
        }
      }
    }
  }

  /** The current state as an immutable snapshot (banks as the reference's `generate_banks` computes them). */
  snapshot(): CommonGroundSnapshot {
    const fbank: string[] = [];
    const ebank: string[] = [];
    const qbank: string[] = [];
    const possible = {} as Record<Color, number[]>;
    const evidenceFor = {} as Record<Color, number[]>;
    const evidenceAgainst = {} as Record<Color, number[]>;
    for (const c of COLORS) {
      possible[c] = sorted(this.poss[c]);
      evidenceFor[c] = sorted(this.ef[c]);
      evidenceAgainst[c] = sorted(this.ea[c]);
      if (this.poss[c].size === 1) {
        fbank.push(`${c}=${possible[c][0]}`);
        continue;
      }
      for (const w of evidenceFor[c]) ebank.push(`${c}=${w}`);
      for (const w of evidenceAgainst[c]) ebank.push(`${c}!=${w}`);
      for (const w of possible[c]) if (!this.ef[c].has(w) && !this.ea[c].has(w)) qbank.push(`${c}=${w}`);
    }
    return { cgType: this.cgType, fbank, ebank, qbank, possible, evidenceFor, evidenceAgainst };
  }
}

/** The FBank of a snapshot as gold weights (`red → "10"`), in color order. */
export function fbankWeights(snapshot: CommonGroundSnapshot): Weights {
  const out: Weights = new Map();
  for (const f of snapshot.fbank) {
    const [c, w] = f.split('=') as [string, string];
    out.set(c, w);
  }
  return out;
}

/**
 * Common-ground history of one CGA file: end time (seconds) → snapshot, in insertion order. Time 0 holds the
 * initial state; a later row with the same end time replaces the snapshot but keeps the key's position.
 */
export type CommonGroundHistory = Map<number, CommonGroundSnapshot>;

const FLOAT_RE =
  /^[+-]?(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:[eE][+-]?[0-9](?:_?[0-9])*)?$/;

/** Python's `float(text)` for finite decimal literals (surrounding whitespace and `_` digit separators allowed); else undefined. */
export function parsePythonFloat(text: string): number | undefined {
  const t = pyStrip(text);
  if (!FLOAT_RE.test(t)) return undefined;
  const x = Number(t.replace(/_/g, ''));
  return Number.isFinite(x) ? x : undefined;
}

/** The row key the reference writes for an end time: Python's `repr(float)` (`98.088`, `132.0`). */
export function timeKey(time: number): string {
  return pythonFloatRepr(time);
}

const END_TIME = 'End Time - ss.msec';
const COMMON_GROUND = 'Common Ground';
const STATEMENT_RE = /^(S\p{Nd}+)[^\n]*STATEMENT[^\n]*\(([^\n]*?)\)/u;
const ACCEPT_RE = /^ACCEPT\((S\p{Nd}+)\)/u;

/**
 * Replays a CGA annotation CSV (`Begin Time - ss.msec,End Time - ss.msec,Common Ground`) like the reference's
 * `generate_cg_history`: every `Sn: STATEMENT(...)` row updates the state as a STATEMENT and every `ACCEPT(Sn)` row
 * applies statement `Sn`'s content as an ACCEPT, each storing a snapshot at the row's end time.
 * Errors (missing column, bad end time, `ACCEPT` of an unknown statement, an empty sum) name the file and line.
 */
export function replayCga(csvText: string, options: { file?: string } = {}): CommonGroundHistory {
  const file = options.file;
  const rows = parseCsv(csvText, { file });
  const header = rows[0];
  if (!header) throw new InputError('empty CGA file (no header row)', { file });
  const endCol = header.lastIndexOf(END_TIME);
  const cgCol = header.lastIndexOf(COMMON_GROUND);
  for (const [col, name] of [
    [endCol, END_TIME],
    [cgCol, COMMON_GROUND],
  ] as const) {
    if (col < 0) throw new InputError(`missing column "${name}" in the header`, { file, record: 1 });
  }
  const cg = new CommonGround();
  const statements = new Map<string, string>();
  const history: CommonGroundHistory = new Map([[0, cg.snapshot()]]);
  for (let r = 1; r < rows.length; r++) {
    const cells = rows[r]!;
    if (cells.length === 1 && cells[0] === '') continue; // a blank line (csv.DictReader skips it)
    const line = r + 1;
    if (cells.length <= Math.max(endCol, cgCol)) {
      throw new InputError(`row has ${cells.length} fields, expected at least ${Math.max(endCol, cgCol) + 1}`, {
        file,
        record: line,
      });
    }
    const endText = cells[endCol]!;
    const end = parsePythonFloat(endText);
    if (end === undefined) {
      throw new InputError(`not a finite number: ${JSON.stringify(endText)}`, {
        file,
        record: line,
        field: [END_TIME],
      });
    }
    const text = cells[cgCol]!;
    try {
      if (text.includes('STATEMENT')) {
        cg.cgType = 'STATEMENT';
        const m = STATEMENT_RE.exec(text);
        if (m) {
          statements.set(m[1]!, m[2]!);
          cg.update('STATEMENT', m[2]!);
          history.set(end, cg.snapshot());
        }
      }
      if (text.includes('ACCEPT')) {
        cg.cgType = 'ACCEPT';
        const m = ACCEPT_RE.exec(text);
        if (m) {
          const content = statements.get(m[1]!);
          if (content === undefined)
            throw new CommonGroundError(
              `ACCEPT(${m[1]}) refers to a statement that was not made before (the reference raises KeyError)`,
            );
          cg.update('ACCEPT', content);
          history.set(end, cg.snapshot());
        }
      }
    } catch (error) {
      if (error instanceof CommonGroundError) {
        throw new InputError(`${error.message}: ${JSON.stringify(text)}`, {
          file,
          record: line,
          field: [COMMON_GROUND],
          cause: error,
        });
      }
      throw error;
    }
  }
  return history;
}

/** Reads and replays a CGA CSV file (see {@link replayCga}). */
export async function loadCgaHistory(file: string): Promise<CommonGroundHistory> {
  return replayCga(await readText(file), { file });
}

/** The end times whose snapshot is an ACCEPT, in history order: the candidate evaluation rows of a group. */
export function acceptTimes(history: CommonGroundHistory): number[] {
  return [...history].filter(([, s]) => s.cgType === 'ACCEPT').map(([t]) => t);
}

/** The CSV file name of a group in a CGA directory: `Group_01_CGA.csv`. */
export function cgaFileName(group: number | string): string {
  return `Group_${String(group).padStart(2, '0')}_CGA.csv`;
}

/** Which CGA annotations to replay: the originals (used for the recorded gold) or the auto-accept variant. */
export type CgaVariant = 'originals' | 'new';

/** Sub-folder of each variant in the `cgt` resource set (and in mmdp-cgt's `source-data/`). */
export const CGA_VARIANT_DIRS: Record<CgaVariant, string> = { originals: 'cga_originals', new: 'cga_new' };
