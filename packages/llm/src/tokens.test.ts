import { describe, expect, it } from 'vitest';
import { buildRequest } from './request';
import { countPromptTokens, countTextTokens, encodingFor } from './tokens';

describe('local token counting (gpt-tokenizer, offline)', () => {
  it('picks the encoding of the model family', () => {
    expect(encodingFor('gpt-4')).toBe('cl100k_base');
    expect(encodingFor('gpt-4-0613')).toBe('cl100k_base');
    expect(encodingFor('gpt-4-turbo')).toBe('cl100k_base');
    expect(encodingFor('gpt-3.5-turbo')).toBe('cl100k_base');
    expect(encodingFor('gpt-4o-mini')).toBe('o200k_base');
    expect(encodingFor('gpt-4.1')).toBe('o200k_base');
    expect(encodingFor('openai/gpt-4o')).toBe('o200k_base');
    expect(encodingFor('llama3.1:8b')).toBe('o200k_base');
  });

  it('counts the tiktoken reference example', async () => {
    // tiktoken's README: cl100k_base encodes "hello world" as [15339, 1917], two tokens.
    expect(await countTextTokens('hello world', 'gpt-4')).toBe(2);
  });

  it('counts chat prompts the way OpenAI documents (3 per message + 3 reply priming)', async () => {
    // 3 + [3 + "system"(1) + "hello world"(2)] + [3 + "user"(1) + "hello world"(2)] = 15
    const req = buildRequest(
      [
        { role: 'system', content: 'hello world' },
        { role: 'user', content: 'hello world' },
      ],
      undefined,
      { model: 'gpt-4' },
    );
    expect(await countPromptTokens(req)).toBe(15);
  });
});
