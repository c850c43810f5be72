import type { ChatMessage, ChatModel, ChatOptions } from '@eval/core';
import type { z } from 'zod';
import { EvalError } from '@eval/core';

export type JsonExtract = 'last-fenced' | 'first-fenced' | 'raw' | ((text: string) => unknown);

/** Thrown by an extractor when the text holds no JSON to extract. */
export class JsonExtractError extends Error {}

const FENCE = /```([A-Za-z0-9_+-]*)[^\S\r\n]*\r?\n?([\s\S]*?)```/g;

/** Contents of the ```` ``` ```` blocks of `text` that are untagged or tagged `json`, in order. */
export function fencedBlocks(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FENCE)) {
    const tag = (m[1] ?? '').toLowerCase();
    if (tag === '' || tag === 'json' || tag === 'jsonc' || tag === 'json5') out.push(m[2] ?? '');
  }
  return out;
}

/**
 * Extracts a JSON value from model output:
 * - `last-fenced`: the last fenced block (```` ```json ```` or untagged); no block = failure;
 * - `first-fenced`: the first such block;
 * - `raw`: the whole text (trimmed);
 * - a function: whatever it returns (throw to signal failure).
 */
export function extractJson(text: string, mode: JsonExtract = 'last-fenced'): unknown {
  if (typeof mode === 'function') return mode(text);
  let body: string;
  if (mode === 'raw') body = text.trim();
  else {
    const blocks = fencedBlocks(text);
    if (blocks.length === 0) throw new JsonExtractError('no fenced ```json block in the answer');
    body = (mode === 'first-fenced' ? blocks[0]! : blocks[blocks.length - 1]!).trim();
  }
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new JsonExtractError(`invalid JSON (${(error as Error).message})`);
  }
}

export type ChatJsonResult<T> =
  | { ok: true; value: T; raw: string; attempts: number }
  | { ok: false; error: string; raw: string; attempts: number };

export interface ChatJsonOptions<S extends z.ZodType> {
  schema: S;
  /** How to find the JSON in the answer (default `last-fenced`). */
  extract?: JsonExtract;
  /** Re-asks after an invalid answer (default 2, so at most 3 calls). */
  retries?: number;
  /** Options of every call (model, temperature, max tokens, response format, signal). */
  chat?: ChatOptions;
  /**
   * How to re-ask: `append` (default) adds the invalid answer and a correction request to the conversation;
   * `repeat` sends the same messages again with `seed` bumped by one per attempt (so the cache key changes).
   */
  reask?: 'append' | 'repeat';
  /** The correction message of `append` (receives the error). */
  reaskMessage?: (error: string) => string;
}

const defaultReask = (error: string) =>
  `Your previous answer could not be used: ${error}. Answer again with only the JSON, in a fenced \`\`\`json block.`;

function describeZod(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? `${i.path.map(String).join('.')}: ` : ''}${i.message}`)
    .join('; ');
}

/**
 * Asks for JSON, extracts it, validates it with `schema` and re-asks up to `retries` times on an invalid or
 * truncated answer. Resolves to the typed value or to a typed failure carrying the last raw text; errors of
 * the call itself (retries exhausted, budget, replay miss, dry run) are thrown, not returned.
 */
export async function chatJson<S extends z.ZodType>(
  model: ChatModel,
  messages: ChatMessage[],
  options: ChatJsonOptions<S>,
): Promise<ChatJsonResult<z.output<S>>> {
  const retries = options.retries ?? 2;
  const mode = options.extract ?? 'last-fenced';
  const reask = options.reask ?? 'append';
  let convo = [...messages];
  let raw = '';
  let error = 'no answer';
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    const chatOptions: ChatOptions = { ...options.chat };
    if (reask === 'repeat' && attempt > 1) chatOptions.seed = (options.chat?.seed ?? 0) + attempt - 1;
    const result = await model.chat(convo, chatOptions);
    raw = result.text;
    if (result.finishReason === 'length') {
      error = 'answer truncated (finish_reason: length)';
    } else {
      let value: unknown;
      let extracted = false;
      try {
        value = extractJson(raw, mode);
        extracted = true;
      } catch (e) {
        if (EvalError.isInstance(e)) throw e;
        error = (e as Error).message || String(e);
      }
      if (extracted) {
        const parsed = options.schema.safeParse(value);
        if (parsed.success) return { ok: true, value: parsed.data, raw, attempts: attempt };
        error = `JSON does not match the schema (${describeZod(parsed.error)})`;
      }
    }
    if (attempt <= retries && reask === 'append') {
      convo = [
        ...messages,
        { role: 'assistant', content: raw },
        { role: 'user', content: (options.reaskMessage ?? defaultReask)(error) },
      ];
    }
  }
  return { ok: false, error, raw, attempts: retries + 1 };
}
