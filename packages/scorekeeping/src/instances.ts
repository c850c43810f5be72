import { InputError, readText, validate } from '@eval/core';
import { z } from 'zod';
import { parsePyJson, pyDumps, type PyJsonValue } from './internal/pyjson';
import { PythonRandom } from '@eval/core/python';
import {
  EXPERIMENTS,
  type ExperimentName,
  type ExperimentTexts,
  type GameResources,
  type GameWords,
  resourcePaths,
  WHAT_VALUES,
} from './resources';
import { pyReplace } from './internal/text';

/** One game instance, with the keys in the order clembench writes them. */
export interface GameInstance {
  game_id: number;
  tag: string;
  /** slot → value, in slot order. */
  slots: Record<string, string>;
  initial_prompt: string;
  /** The order in which the Questioner asks for the slots. */
  request_order: string[];
  /** slot → index into requests.json[slot]. */
  requests: Record<string, number>;
  /** `"<round>"` → {slot → index into probing_questions.json[slot]}; rounds `"0"`…`"n"`. */
  probes: Record<string, Record<string, number>>;
  /** `"en"`; absent in the v0.9/v1.0 instance files. */
  lang?: string;
}

export interface InstanceExperiment {
  name: string;
  game_instances: GameInstance[];
}

export interface InstancesFile {
  experiments: InstanceExperiment[];
}

const intIndex = z.number().int().nonnegative();

export const gameInstanceSchema = z
  .object({
    game_id: z.number().int().nonnegative(),
    tag: z.string(),
    slots: z.record(z.string(), z.string()),
    initial_prompt: z.string(),
    request_order: z.array(z.string()),
    requests: z.record(z.string(), intIndex),
    probes: z.record(z.string(), z.record(z.string(), intIndex)),
    lang: z.string().optional(),
  })
  .loose()
  .superRefine((inst, ctx) => {
    const slots = Object.keys(inst.slots);
    const n = slots.length;
    if (
      inst.request_order.length !== n ||
      new Set(inst.request_order).size !== n ||
      inst.request_order.some((s) => !(s in inst.slots))
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['request_order'],
        message: `must be a permutation of the ${n} slots (${slots.join(', ')})`,
      });
    }
    for (const s of inst.request_order) {
      if (!(s in inst.requests))
        ctx.addIssue({ code: 'custom', path: ['requests', s], message: `no request index for slot "${s}"` });
    }
    for (let r = 0; r <= n; r++) {
      const round = inst.probes[String(r)];
      if (!round) {
        ctx.addIssue({
          code: 'custom',
          path: ['probes', String(r)],
          message: `missing probing round ${r} (rounds 0..${n} are needed)`,
        });
        continue;
      }
      for (const s of slots) {
        if (!(s in round))
          ctx.addIssue({ code: 'custom', path: ['probes', String(r), s], message: `no probe index for slot "${s}"` });
      }
    }
  });

export const instancesFileSchema = z.object({
  experiments: z.array(z.object({ name: z.string(), game_instances: z.array(gameInstanceSchema) }).loose()),
});

/** Reads an instances file (`in/instances.json` layout), validated; errors name the file and the field. */
export async function readInstancesFile(file: string): Promise<InstancesFile> {
  return validate(instancesFileSchema, parsePyJson(await readText(file), file), { file }) as InstancesFile;
}

/** Reads one instance (an episode's `instance.json`). */
export async function readInstanceFile(file: string): Promise<GameInstance> {
  return validate(gameInstanceSchema, parsePyJson(await readText(file), file), { file }) as GameInstance;
}

/** The instance block of the initial prompt: `WHAT: …` then `SLOT: value` lines, stripped of leading/trailing `\n`. */
export function renderInstanceBlock(what: string, slots: Record<string, string>): string {
  let block = `WHAT: ${what}\n`;
  for (const [slot, value] of Object.entries(slots)) block += `${slot.toUpperCase()}: ${value}\n`;
  return block.replace(/^\n+|\n+$/g, '');
}

/** Fills an initial-prompt template (plain replacement of every occurrence, in clembench's order). */
export function renderInitialPrompt(
  template: string,
  instanceBlock: string,
  tag: string,
  words: Pick<GameWords, 'ANSWER' | 'ASIDE' | 'ME'>,
): string {
  let text = pyReplace(template, '$INSTANCE$', instanceBlock);
  text = pyReplace(text, '$QUESTIONER$', tag);
  text = pyReplace(text, '$ANSWER$', words.ANSWER);
  text = pyReplace(text, '$ASIDE$', words.ASIDE);
  text = pyReplace(text, '$ME$', words.ME);
  return text;
}

export interface GenerateInstancesOptions {
  /** Seed of Python's `random.seed` (default 42, the clembench v2.0 instances; 2102 gave the v1.6 ones). */
  seed?: number;
  /** Instances per experiment (default 10). */
  instancesPerExperiment?: number;
  /** `lang` written into each instance (default `"en"`). */
  lang?: string;
}

/**
 * clembench's instance generator: one CPython random stream (seeded once) over all five experiments in
 * `EXPERIMENTS` order. With the canonical resources and seed 42 the output is `in/instances.json`.
 */
export function generateInstances(resources: GameResources, options: GenerateInstancesOptions = {}): InstancesFile {
  const rng = new PythonRandom(options.seed ?? 42);
  const count = options.instancesPerExperiment ?? 10;
  const lang = options.lang ?? 'en';
  const experiments: InstanceExperiment[] = [];
  for (const exp of EXPERIMENTS) {
    const texts = resources.experiments[exp];
    const tag = resources.words.tags[exp];
    const game_instances: GameInstance[] = [];
    for (let gameId = 0; gameId < count; gameId++) {
      game_instances.push(sampleInstance(rng, exp, texts, tag, resources.words, gameId, lang));
    }
    experiments.push({ name: exp, game_instances });
  }
  return { experiments };
}

function sampleInstance(
  rng: PythonRandom,
  exp: ExperimentName,
  texts: ExperimentTexts,
  tag: string,
  words: GameWords,
  gameId: number,
  lang: string,
): GameInstance {
  const slots: Record<string, string> = {};
  for (const [slot, values] of Object.entries(texts.slotValues)) slots[slot] = rng.choice(values);
  const block = renderInstanceBlock(WHAT_VALUES[exp], slots);
  const nSlots = Object.keys(slots).length;
  const requestKeys = Object.keys(texts.requests);
  const request_order = rng.sample(requestKeys, requestKeys.length);
  const requests: Record<string, number> = {};
  for (const [slot, phrasings] of Object.entries(texts.requests)) requests[slot] = rng.randbelow(phrasings.length);
  const probes: Record<string, Record<string, number>> = {};
  for (let turn = 0; turn <= nSlots; turn++) {
    const round: Record<string, number> = {};
    for (const [slot, questions] of Object.entries(texts.probingQuestions))
      round[slot] = rng.randbelow(questions.length);
    probes[String(turn)] = round;
  }
  return {
    game_id: gameId,
    tag,
    slots,
    initial_prompt: renderInitialPrompt(texts.template, block, tag, words),
    request_order,
    requests,
    probes,
    lang,
  };
}

export interface FormatInstancesOptions {
  /** Pretty-print like `json.dumps(obj, indent=N)` (the v1.6 file uses 2); default: one compact line as in instances.json. */
  indent?: number;
}

/** Serialises instances exactly as Python's `json.dumps` (ASCII only, `", "`/`": "`, no trailing newline). */
export function formatInstances(instances: InstancesFile, options: FormatInstancesOptions = {}): string {
  return pyDumps(instances as unknown as PyJsonValue, { indent: options.indent });
}

/** One finding of the value-overlap check. */
export interface ValueOverlap {
  experiment: ExperimentName;
  kind: 'duplicate' | 'contained';
  /** The (shorter) value, its slot and index. */
  value: string;
  slot: string;
  index: number;
  /** For `contained`: the value it occurs in. */
  other?: { value: string; slot: string; index: number };
}

export type OverlapCheckMode = 'case-sensitive' | 'case-insensitive';

/**
 * clembench's `checkvalues.py`: per experiment, values that occur twice and every pair (w1, w2), w1 ≠ w2, with
 * w1 contained in w2. The reference compares case-sensitively; the game itself matches case-insensitively, so
 * `case-insensitive` finds the overlaps that actually cause false slot filling and anticipation.
 */
export function checkSlotValues(resources: GameResources, mode: OverlapCheckMode = 'case-sensitive'): ValueOverlap[] {
  const findings: ValueOverlap[] = [];
  const norm = mode === 'case-sensitive' ? (s: string) => s : (s: string) => s.toLowerCase();
  for (const exp of EXPERIMENTS) {
    const all: Array<{ value: string; slot: string; index: number }> = [];
    for (const [slot, values] of Object.entries(resources.experiments[exp].slotValues))
      values.forEach((value, index) => all.push({ value, slot, index }));
    const seen = new Map<string, { value: string; slot: string; index: number }>();
    for (const v of all) {
      const key = norm(v.value);
      const first = seen.get(key);
      if (first)
        findings.push({
          experiment: exp,
          kind: 'duplicate',
          value: v.value,
          slot: v.slot,
          index: v.index,
          other: first,
        });
      else seen.set(key, v);
    }
    for (const a of all) {
      for (const b of all) {
        if (a === b) continue;
        const na = norm(a.value);
        const nb = norm(b.value);
        if (na !== nb && nb.includes(na))
          findings.push({ experiment: exp, kind: 'contained', value: a.value, slot: a.slot, index: a.index, other: b });
      }
    }
  }
  return findings;
}

/** A readable line for a finding. */
export function describeOverlap(o: ValueOverlap): string {
  const at = (x: { value: string; slot: string; index: number }) =>
    `${JSON.stringify(x.value)} (${x.slot}[${x.index}])`;
  return o.kind === 'duplicate'
    ? `${o.experiment}: duplicate value ${at(o)}, also ${at(o.other!)}`
    : `${o.experiment}: ${at(o)} is contained in ${at(o.other!)}`;
}

/** Throws an {@link InputError} naming the slot_values.json file and field of the first overlap. */
export function assertNoOverlaps(resources: GameResources, mode: OverlapCheckMode = 'case-sensitive'): void {
  const findings = checkSlotValues(resources, mode);
  if (findings.length === 0) return;
  const first = findings[0]!;
  // The built-in defaults have no directory: name them as `defaults:<path>`.
  const file = resources.isDefault
    ? `${resources.source}:${resourcePaths.slotValues(first.experiment)}`
    : `${resources.source}/${resourcePaths.slotValues(first.experiment)}`;
  const more =
    findings.length > 1
      ? ` (and ${findings.length - 1} more: ${findings.slice(1, 4).map(describeOverlap).join('; ')}${findings.length > 4 ? '; …' : ''})`
      : '';
  throw new InputError(`overlapping slot values (${mode} check): ${describeOverlap(first)}${more}`, {
    file,
    field: [first.slot, first.index],
    code: 'input_overlapping_values',
  });
}

export interface GenerateInstancesFileOptions extends GenerateInstancesOptions, FormatInstancesOptions {
  /** The value-overlap check of `checkvalues.py` before generating (default `case-sensitive`, as the reference). */
  checkValues?: OverlapCheckMode | 'off';
  /** Overlapping slot values are warnings instead of an {@link InputError}. */
  allowOverlaps?: boolean;
}

/**
 * `dialeval scorekeeping instances`: the value-overlap check, then the instances file's exact text (as Python's
 * `json.dumps`); `warnings` describe the overlaps found when they are allowed.
 */
export function generateInstancesFile(
  resources: GameResources,
  options: GenerateInstancesFileOptions = {},
): { text: string; warnings: string[] } {
  const warnings: string[] = [];
  const mode = options.checkValues ?? 'case-sensitive';
  if (mode !== 'off') {
    const found = checkSlotValues(resources, mode);
    if (found.length > 0 && !options.allowOverlaps) assertNoOverlaps(resources, mode);
    for (const f of found) warnings.push(`overlapping slot values (${mode}): ${describeOverlap(f)}`);
  }
  return { text: formatInstances(generateInstances(resources, options), { indent: options.indent }), warnings };
}
