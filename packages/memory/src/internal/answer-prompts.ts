/**
 * HaluMem's memory-system-side QA answer prompts (`eval/prompts.py`) and per-adapter context templates
 * (`eval/eval_*.py`), loaded from a directory the user provides. These texts are CC-BY-NC-ND-4.0 and are NOT shipped
 * with this package; `scripts/extract-halumem-prompts.mjs` extracts them, unmodified, from a HaluMem checkout.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { EvalError, InputError } from '@eval/core';
import { pyFormat } from './python';

/** Environment variable naming a directory of extracted HaluMem answer prompts (used when no directory is passed). */
export const HALUMEM_PROMPTS_ENV = 'DIALEVAL_HALUMEM_PROMPTS_DIR';

/** The four answer prompts of `eval/prompts.py`, by their constant's suffix (`PROMPT_MEMZERO` → `MEMZERO`). */
export const ANSWER_PROMPT_SYSTEMS = ['MEMZERO', 'ZEP', 'MEMOS', 'MEMOBASE'] as const;
export type AnswerPromptSystem = (typeof ANSWER_PROMPT_SYSTEMS)[number];

/** The context template of each adapter script (`eval/eval_<adapter>.py`) and the file it is stored in. */
export const CONTEXT_TEMPLATE_FILES = {
  memobase: 'eval_memobase__TEMPLATE_MEMOBASE.txt',
  memos: 'eval_memos__TEMPLATE_MEMOS.txt',
  memzero: 'eval_memzero__TEMPLATE_MEM0.txt',
  memzero_graph: 'eval_memzero_graph__TEMPLATE_MEM0_GRAPH.txt',
  supermemory: 'eval_supermemory__TEMPLATE_SUPERMEMORY.txt',
  zep: 'eval_zep__TEMPLATE.txt',
} as const;
export type ContextTemplateAdapter = keyof typeof CONTEXT_TEMPLATE_FILES;

/** The file holding Mem0's `custom_instructions` (`eval/eval_memzero.py`). */
export const MEM0_CUSTOM_INSTRUCTIONS_FILE = 'eval_memzero__custom_instructions.txt';

/** The `str.format` fields of each adapter's context template (spec §8.2). */
export interface ContextTemplateFields {
  memobase: { user_id: string; memories: string };
  memos: { user_id: string; memories: string };
  memzero: { user_id: string; memories: string };
  memzero_graph: { user_id: string; memories: string; graph_memories: string };
  supermemory: { user_id: string; memories: string };
  zep: { facts: string; entities: string };
}

/** The texts loaded by {@link loadAnswerPrompts}, byte-exact (leading newline and trailing indentation kept). */
export interface HaluMemAnswerPrompts {
  /** The directory they were read from (absolute). */
  dir: string;
  /** `PROMPT_<SYSTEM>` templates, fields `{context}` and `{question}`. */
  answerPrompts: Record<AnswerPromptSystem, string>;
  /** Context templates by adapter (fields in {@link ContextTemplateFields}). */
  contextTemplates: Record<ContextTemplateAdapter, string>;
  /** Mem0's `custom_instructions` (plain text, not a template). */
  mem0CustomInstructions: string;
}

/** The file an answer prompt is stored in (`PROMPT_MEMZERO.txt`). */
export function answerPromptFile(system: AnswerPromptSystem): string {
  return `PROMPT_${system}.txt`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

async function readText(dir: string, name: string): Promise<string> {
  const file = join(dir, name);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new InputError(
        `missing HaluMem prompt file ${name} in ${dir} (produce the directory with @eval/memory's scripts/extract-halumem-prompts.mjs from a HaluMem checkout)`,
        { file, code: 'file_not_found', cause: error },
      );
    }
    throw new InputError(`cannot read HaluMem prompt file (${(error as Error).message})`, { file, cause: error });
  }
  try {
    return utf8.decode(bytes);
  } catch (error) {
    throw new InputError('not valid UTF-8', { file, cause: error });
  }
}

/**
 * Reads HaluMem's answer prompts, context templates and Mem0 custom instructions from `dir` (default: the directory in
 * `$DIALEVAL_HALUMEM_PROMPTS_DIR`), laid out as `scripts/extract-halumem-prompts.mjs` writes it: `PROMPT_<SYSTEM>.txt`,
 * `eval_<adapter>__TEMPLATE_*.txt`, `eval_memzero__custom_instructions.txt`. The texts are returned exactly as stored
 * (no trimming, no newline conversion). A missing file is an `InputError` naming it; other files are ignored.
 */
export async function loadAnswerPrompts(
  dir?: string,
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<HaluMemAnswerPrompts> {
  const env = options.env ?? process.env;
  const chosen = dir ?? env[HALUMEM_PROMPTS_ENV];
  if (!chosen) {
    throw new InputError(
      `no HaluMem answer-prompt directory: pass one or set $${HALUMEM_PROMPTS_ENV} (these CC-BY-NC-ND texts are not shipped; extract them with scripts/extract-halumem-prompts.mjs)`,
      { code: 'resource_missing' },
    );
  }
  const root = resolve(chosen);
  const answerPrompts = {} as Record<AnswerPromptSystem, string>;
  for (const system of ANSWER_PROMPT_SYSTEMS) answerPrompts[system] = await readText(root, answerPromptFile(system));
  const contextTemplates = {} as Record<ContextTemplateAdapter, string>;
  for (const [adapter, name] of Object.entries(CONTEXT_TEMPLATE_FILES) as Array<[ContextTemplateAdapter, string]>) {
    contextTemplates[adapter] = await readText(root, name);
  }
  const mem0CustomInstructions = await readText(root, MEM0_CUSTOM_INSTRUCTIONS_FILE);
  return { dir: root, answerPrompts, contextTemplates, mem0CustomInstructions };
}

/**
 * The names of the `str.format` fields a template uses, in order of first use (`{{`/`}}` escapes skipped). Throws like
 * {@link pyFormat} on a stray brace or a field that is not a plain name.
 */
export function templateFieldNames(template: string): string[] {
  const names: string[] = [];
  const record: Record<string, unknown> = {};
  // pyFormat validates the syntax; the fields are collected by scanning the same way it does.
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      i++;
      continue;
    }
    if (c === '{') {
      const end = template.indexOf('}', i + 1);
      if (end < 0) break;
      const name = template.slice(i + 1, end);
      if (!names.includes(name)) names.push(name);
      record[name] = '';
      i = end;
    }
  }
  pyFormat(template, record);
  return names;
}

/**
 * Renders a HaluMem answer prompt as the adapters do: `PROMPT_X.format(context=context, question=question)`
 * (Python `str.format` semantics).
 */
export function renderAnswerPrompt(template: string, fields: { context: string; question: string }): string {
  return pyFormat(template, { context: fields.context, question: fields.question });
}

/**
 * Renders an adapter's context template as its `search_memory` does (`TEMPLATE.format(...)`), e.g.
 * `renderContextTemplate('memos', prompts.contextTemplates.memos, { user_id, memories: memories.join('\n') })`.
 * How each adapter builds the field strings (joins, timestamps) is the adapter's business, not the template's.
 */
export function renderContextTemplate<A extends ContextTemplateAdapter>(
  adapter: A,
  template: string,
  fields: ContextTemplateFields[A],
): string {
  if (!Object.hasOwn(CONTEXT_TEMPLATE_FILES, adapter)) {
    throw new EvalError(
      'template_error',
      `unknown context-template adapter "${adapter}" (known: ${Object.keys(CONTEXT_TEMPLATE_FILES).join(', ')})`,
    );
  }
  return pyFormat(template, fields as unknown as Record<string, unknown>);
}

/**
 * Checks, before any call is made, that `template` is well formed and uses only the fields in `allowed` (the ones the
 * caller fills); throws an `EvalError` (`template_error`) naming the template and the unknown fields otherwise.
 */
export function assertTemplateFields(template: string, allowed: readonly string[], what: string): void {
  let names: string[];
  try {
    names = templateFieldNames(template);
  } catch (error) {
    throw new EvalError('template_error', `${what}: ${(error as Error).message}`, { cause: error });
  }
  const unknown = names.filter((n) => !allowed.includes(n));
  if (unknown.length) {
    throw new EvalError(
      'template_error',
      `${what} uses field(s) ${unknown.map((n) => `{${n}}`).join(', ')}; only ${allowed.map((n) => `{${n}}`).join(', ')} are filled`,
    );
  }
}
