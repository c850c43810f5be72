import type { CanonicalRequest } from './request';

type Counter = (text: string) => number;

const loaded = new Map<string, Promise<Counter>>();

/** The tokenizer encoding of an OpenAI model; other models are estimated with `o200k_base`. */
export function encodingFor(model: string): 'o200k_base' | 'cl100k_base' {
  const m = model.slice(model.lastIndexOf('/') + 1);
  if (/^(gpt-4(-turbo|-\d{4}|-32k)?($|-)|gpt-3\.5)/.test(m) && !/^gpt-4(o|\.1|\.5)/.test(m)) return 'cl100k_base';
  return 'o200k_base';
}

function load(encoding: 'o200k_base' | 'cl100k_base'): Promise<Counter> {
  let p = loaded.get(encoding);
  if (!p) {
    // gpt-tokenizer: pure JS, ships its BPE ranks, works offline. Loaded only when a count is needed (dry run, budget).
    p = (
      encoding === 'o200k_base'
        ? import('gpt-tokenizer/encoding/o200k_base')
        : import('gpt-tokenizer/encoding/cl100k_base')
    ).then((mod) => {
      const api =
        (mod as { countTokens?: Counter; default?: { countTokens: Counter } }).countTokens ??
        (mod as { default: { countTokens: Counter } }).default.countTokens;
      return (text: string) => api(text);
    });
    loaded.set(encoding, p);
  }
  return p;
}

/**
 * Prompt tokens of a chat request, counted locally the way OpenAI documents for its chat models: each message
 * costs its role and content tokens plus 3, and every reply is primed with 3 more. Exact for OpenAI chat models
 * up to a few tokens; an estimate for other model families.
 */
export async function countPromptTokens(req: CanonicalRequest): Promise<number> {
  const count = await load(encodingFor(req.model));
  let n = 3;
  for (const m of req.messages) n += 3 + count(m.role) + count(m.content);
  if (req.response_format?.type === 'json_schema') n += count(JSON.stringify(req.response_format.json_schema.schema));
  return n;
}

const ready = new Map<string, Counter>();

/**
 * Prompt tokens of a request for pacing, at once: counted as {@link countPromptTokens} does once the tokenizer is
 * loaded (its loading starts on the first call), estimated from the characters until then (3 per token, on the high
 * side: the quota is what is at stake).
 */
export function quickPromptTokens(req: CanonicalRequest): { tokens: number; exact: boolean } {
  const encoding = encodingFor(req.model);
  const count = ready.get(encoding);
  if (!count) {
    if (!loaded.has(encoding)) void load(encoding).then((c) => ready.set(encoding, c));
    let chars = 0;
    for (const m of req.messages) chars += m.content.length;
    return { tokens: 3 + 4 * req.messages.length + Math.ceil(chars / 3), exact: false };
  }
  let n = 3;
  for (const m of req.messages) n += 3 + count(m.role) + count(m.content);
  if (req.response_format?.type === 'json_schema') n += count(JSON.stringify(req.response_format.json_schema.schema));
  return { tokens: n, exact: true };
}

/** Tokens of a plain text (completion estimates, tests). */
export async function countTextTokens(text: string, model = 'gpt-4o'): Promise<number> {
  return (await load(encodingFor(model)))(text);
}
