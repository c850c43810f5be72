import type { ChatMessage, ChatOptions, ResponseFormat } from '@eval/core';
import { InputError } from '@eval/core';
import { canonicalJson, sha256 } from './hash';

/**
 * Everything that determines a model's answer, and nothing else: this is what the cache key hashes.
 * Field names follow the OpenAI wire format; absent parameters are absent (not null).
 */
export interface CanonicalRequest {
  model: string;
  messages: Array<{ role: ChatMessage['role']; content: string }>;
  params: { temperature?: number; top_p?: number; max_tokens?: number; seed?: number };
  response_format?: WireResponseFormat;
}

export type WireResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } };

export interface RequestDefaults {
  model: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
}

function wireFormat(format: ResponseFormat | undefined): WireResponseFormat | undefined {
  if (!format) return undefined;
  if (format.type === 'json_schema') {
    return {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.strict !== undefined ? { strict: format.strict } : {}),
      },
    };
  }
  return { type: format.type };
}

const ROLES = new Set(['system', 'user', 'assistant']);

/** Builds the canonical request of a call: the call's options win over the run's defaults. */
export function buildRequest(
  messages: ChatMessage[],
  options: ChatOptions | undefined,
  defaults: RequestDefaults,
): CanonicalRequest {
  if (!Array.isArray(messages) || messages.length === 0)
    throw new InputError('a chat call needs at least one message', { field: ['messages'] });
  const out: CanonicalRequest['messages'] = messages.map((m, i) => {
    if (!m || !ROLES.has(m.role) || typeof m.content !== 'string') {
      throw new InputError('each message needs a role (system, user, assistant) and string content', {
        field: ['messages', i],
      });
    }
    return { role: m.role, content: m.content };
  });
  const params: CanonicalRequest['params'] = {};
  const temperature = options?.temperature ?? defaults.temperature;
  const topP = options?.topP ?? defaults.topP;
  const maxTokens = options?.maxTokens ?? defaults.maxTokens;
  const seed = options?.seed ?? defaults.seed;
  if (temperature !== undefined) params.temperature = temperature;
  if (topP !== undefined) params.top_p = topP;
  if (maxTokens !== undefined) params.max_tokens = maxTokens;
  if (seed !== undefined) params.seed = seed;
  const req: CanonicalRequest = { model: options?.model ?? defaults.model, messages: out, params };
  const rf = wireFormat(options?.responseFormat);
  if (rf) req.response_format = rf;
  return req;
}

/** What else a cache key may depend on besides the request itself. */
export interface KeyExtras {
  /** Keeps the answers of two runs whose prompts coincide apart (e.g. two imported recorded runs). */
  namespace?: string;
  /** Repeat index of a call made several times (`repeats`): 0 is the first. */
  repeat?: number;
}

/**
 * The cache key: sha256 of the canonical JSON of (model, messages, sampling parameters, response format). With a
 * namespace or a repeat index > 0 these are hashed along (`{ namespace, repeat, request }`); without them (repeat 0,
 * no namespace) the key is exactly the one of earlier versions, so existing caches stay valid.
 */
export function requestKey(req: CanonicalRequest, extras?: KeyExtras): string {
  const namespace = extras?.namespace || undefined;
  const repeat = extras?.repeat ? extras.repeat : undefined;
  if (namespace === undefined && repeat === undefined) return sha256(canonicalJson(req));
  return sha256(canonicalJson({ namespace, repeat, request: req }));
}

export type MaxTokensParam = 'max_tokens' | 'max_completion_tokens';

/** The body sent to `POST /chat/completions` (and written in dry-run / batch JSONL). */
export function wireBody(req: CanonicalRequest, maxTokensParam: MaxTokensParam): Record<string, unknown> {
  const body: Record<string, unknown> = { model: req.model, messages: req.messages };
  const p = req.params;
  if (p.temperature !== undefined) body.temperature = p.temperature;
  if (p.top_p !== undefined) body.top_p = p.top_p;
  if (p.max_tokens !== undefined) body[maxTokensParam] = p.max_tokens;
  if (p.seed !== undefined) body.seed = p.seed;
  if (req.response_format) body.response_format = req.response_format;
  return body;
}
