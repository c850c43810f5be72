/**
 * The chat-model interface every LLM-facing package talks to. `@eval/core` ships no implementation:
 * `@eval/llm` provides the OpenAI-compatible one; tests and demos use programmatic ones.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Requested output format: free text, any JSON object, or JSON following a schema. */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface ChatOptions {
  /** Model name; implementations fall back to their configured default. */
  model?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  responseFormat?: ResponseFormat;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the provider's prompt cache, when reported. */
  cachedTokens?: number;
}

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | 'other';

export interface ChatResult {
  text: string;
  finishReason: FinishReason;
  usage?: ChatUsage;
  /** The model that answered, as reported by the endpoint. */
  model?: string;
  /** True when the answer came from a local cache rather than the endpoint. */
  cached?: boolean;
}

export interface ChatModel {
  /** A readable identifier, e.g. `openai:gpt-4o` or `scripted`. */
  readonly id: string;
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
}
