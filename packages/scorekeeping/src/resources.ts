import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { EvalError, InputError, readText, resolveResourceDir, validate, writeFileAtomic } from '@eval/core';
import { z } from 'zod';
import { defaultResources } from './defaults';
import { parsePyJson } from './internal/pyjson';

/** The five experiments, in the order of clembench's `EXPERIMENTS` (also the order in instances.json and `0_…4_`). */
export const EXPERIMENTS = ['travel-booking', 'job-interview', 'restaurant', 'things-places', 'letter-number'] as const;
export type ExperimentName = (typeof EXPERIMENTS)[number];

/** The `WHAT:` line of each experiment's instance block (constants of clembench's instance generator). */
export const WHAT_VALUES: Record<ExperimentName, string> = {
  'travel-booking': 'Travel',
  'job-interview': 'Job Application',
  restaurant: 'Restaurant',
  'things-places': 'Things at places',
  'letter-number': 'Numbered letters',
};

/** Name of the resource set with the canonical clembench texts (`dialeval resources fetch clembench-privateshared`). */
export const RESOURCE_SET = 'clembench-privateshared';

/** `resources/en_words.json`: keywords, probe/coda templates and the Questioner tag of each experiment. */
export interface GameWords {
  ANSWER: string;
  ASIDE: string;
  ME: string;
  PROBE: string;
  CODA: string;
  DUMMY_PROMPT: string;
  YES: string;
  NO: string;
  /** The pseudo answer after the initial prompt (absent before 2025-06: then `"Ok."`). */
  OK?: string;
  tags: Record<ExperimentName, string>;
}

export interface ExperimentTexts {
  /** `resources/initial_prompts/<exp>_1.template`. */
  template: string;
  /** `resources/texts/<exp>/slot_values.json`: candidate values per slot (key order = slot order). */
  slotValues: Record<string, string[]>;
  /** `resources/texts/<exp>/requests.json`: the Questioner's phrasings per slot. */
  requests: Record<string, string[]>;
  /** `resources/texts/<exp>/probing_questions.json`: probing-question phrasings per slot. */
  probingQuestions: Record<string, string[]>;
}

/** Everything the game reads from a resource directory in clembench's layout. */
export interface GameResources {
  /** Where the texts come from: `"defaults"` (this package's own wording) or the directory they were read from. */
  source: string;
  /** True for the package's built-in default texts (not the clembench benchmark texts). */
  isDefault: boolean;
  words: GameWords;
  /** `resources/texts/reprompts.json` `suffixes`: one per try (5 tries). */
  reprompts: string[];
  experiments: Record<ExperimentName, ExperimentTexts>;
}

const nonEmptyString = z.string().min(1);
const phraseLists = z.record(z.string(), z.array(z.string()).min(1, 'needs at least one entry'));

export const gameWordsSchema = z.object({
  ANSWER: nonEmptyString,
  ASIDE: nonEmptyString,
  ME: nonEmptyString,
  PROBE: z.string().includes('{}', { message: 'must contain {} for the question' }),
  CODA: z.string().includes('{}', { message: 'must contain {} for the request' }),
  DUMMY_PROMPT: z.string(),
  YES: nonEmptyString,
  NO: nonEmptyString,
  OK: z.string().optional(),
  tags: z.object(
    Object.fromEntries(EXPERIMENTS.map((e) => [e, nonEmptyString])) as Record<ExperimentName, typeof nonEmptyString>,
  ),
});

const repromptsSchema = z.object({ suffixes: z.array(z.string()).min(1, 'needs at least one entry') });

/** Relative paths of the files of a resource directory (clembench layout). */
export const resourcePaths = {
  words: 'resources/en_words.json',
  reprompts: 'resources/texts/reprompts.json',
  template: (exp: string) => `resources/initial_prompts/${exp}_1.template`,
  slotValues: (exp: string) => `resources/texts/${exp}/slot_values.json`,
  requests: (exp: string) => `resources/texts/${exp}/requests.json`,
  probingQuestions: (exp: string) => `resources/texts/${exp}/probing_questions.json`,
  instances: 'in/instances.json',
} as const;

/** Every file the game needs in a resource directory. */
export function requiredResourceFiles(): string[] {
  return [
    resourcePaths.words,
    resourcePaths.reprompts,
    ...EXPERIMENTS.flatMap((e) => [
      resourcePaths.template(e),
      resourcePaths.slotValues(e),
      resourcePaths.requests(e),
      resourcePaths.probingQuestions(e),
    ]),
  ];
}

async function readJsonFile(dir: string, rel: string): Promise<unknown> {
  const file = join(dir, rel);
  if (!existsSync(file)) {
    throw new InputError(`missing file of the resource directory ${dir} (clembench layout: ${rel})`, {
      file,
      code: 'file_not_found',
    });
  }
  return parsePyJson(await readText(file), file);
}

/** Checks that the three text files of an experiment describe the same slots. */
export function checkExperimentTexts(
  exp: string,
  texts: ExperimentTexts,
  where: (rel: string) => string = (r) => r,
): void {
  const slots = Object.keys(texts.slotValues);
  if (slots.length === 0) throw new InputError('no slots', { file: where(resourcePaths.slotValues(exp)) });
  for (const [rel, obj] of [
    [resourcePaths.requests(exp), texts.requests],
    [resourcePaths.probingQuestions(exp), texts.probingQuestions],
  ] as const) {
    for (const slot of slots) {
      if (!(slot in obj))
        throw new InputError(`slot "${slot}" of ${resourcePaths.slotValues(exp)} is missing`, {
          file: where(rel),
          field: [slot],
        });
    }
    for (const key of Object.keys(obj)) {
      if (!slots.includes(key))
        throw new InputError(`slot "${key}" is not in ${resourcePaths.slotValues(exp)}`, {
          file: where(rel),
          field: [key],
        });
    }
  }
}

/**
 * Reads a resource directory in clembench's layout (`resources/en_words.json`, `resources/texts/…`,
 * `resources/initial_prompts/…`). Errors name the file and the field.
 */
export async function loadResourceDir(dir: string): Promise<GameResources> {
  const root = resolve(dir);
  const where = (rel: string) => join(root, rel);
  const words = validate(gameWordsSchema, await readJsonFile(root, resourcePaths.words), {
    file: where(resourcePaths.words),
  }) as GameWords;
  const reprompts = validate(repromptsSchema, await readJsonFile(root, resourcePaths.reprompts), {
    file: where(resourcePaths.reprompts),
  }).suffixes;
  const experiments = {} as Record<ExperimentName, ExperimentTexts>;
  for (const exp of EXPERIMENTS) {
    const templateFile = where(resourcePaths.template(exp));
    if (!existsSync(templateFile)) {
      throw new InputError(
        `missing file of the resource directory ${root} (clembench layout: ${resourcePaths.template(exp)})`,
        {
          file: templateFile,
          code: 'file_not_found',
        },
      );
    }
    const template = await readFile(templateFile, 'utf8');
    const slotValues = validate(phraseLists, await readJsonFile(root, resourcePaths.slotValues(exp)), {
      file: where(resourcePaths.slotValues(exp)),
    });
    const requests = validate(phraseLists, await readJsonFile(root, resourcePaths.requests(exp)), {
      file: where(resourcePaths.requests(exp)),
    });
    const probingQuestions = validate(phraseLists, await readJsonFile(root, resourcePaths.probingQuestions(exp)), {
      file: where(resourcePaths.probingQuestions(exp)),
    });
    const texts: ExperimentTexts = { template, slotValues, requests, probingQuestions };
    checkExperimentTexts(exp, texts, where);
    experiments[exp] = texts;
  }
  return { source: root, isDefault: false, words, reprompts, experiments };
}

function pretty(value: unknown): string {
  return `${JSON.stringify(value, null, 4)}\n`;
}

/** Writes resources as a directory in clembench's layout (e.g. the defaults, as a starting point for own texts). */
export async function writeResourceDir(resources: GameResources, dir: string): Promise<void> {
  const root = resolve(dir);
  await writeFileAtomic(join(root, resourcePaths.words), pretty(resources.words));
  await writeFileAtomic(join(root, resourcePaths.reprompts), pretty({ suffixes: resources.reprompts }));
  for (const exp of EXPERIMENTS) {
    const t = resources.experiments[exp];
    await writeFileAtomic(join(root, resourcePaths.template(exp)), t.template);
    await writeFileAtomic(join(root, resourcePaths.slotValues(exp)), pretty(t.slotValues));
    await writeFileAtomic(join(root, resourcePaths.requests(exp)), pretty(t.requests));
    await writeFileAtomic(join(root, resourcePaths.probingQuestions(exp)), pretty(t.probingQuestions));
  }
}

export interface ResolveGameResourcesOptions {
  /** A resource directory (`--resources DIR`); `"default"` selects the built-in default texts. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/**
 * Finds the game texts: `dir` (`--resources`), else `$DIALEVAL_CLEMBENCH_PRIVATESHARED_DIR`, else the fetched
 * `clembench-privateshared` set; when none is present, the package's default texts (own wording, labelled
 * `isDefault`). Returns the resources and the directory they came from (undefined for the defaults).
 */
export async function resolveGameResources(
  options: ResolveGameResourcesOptions = {},
): Promise<{ resources: GameResources; dir?: string }> {
  if (options.dir === 'default' || options.dir === 'defaults') return { resources: defaultResources() };
  let dir: string;
  try {
    dir = await resolveResourceDir(RESOURCE_SET, {
      dir: options.dir,
      env: options.env,
      home: options.home,
      flag: '--resources',
    });
  } catch (error) {
    if (
      !options.dir &&
      EvalError.isInstance(error) &&
      error.code === 'resource_missing' &&
      /is not installed/.test(error.message)
    ) {
      return { resources: defaultResources() };
    }
    throw error;
  }
  return { resources: await loadResourceDir(dir), dir };
}
