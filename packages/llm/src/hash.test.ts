import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalJson, sha256 } from './hash';
import { buildRequest, requestKey, wireBody } from './request';

describe('canonicalJson', () => {
  it('sorts keys recursively and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[1,{"z":1}]},"b":1}',
    );
  });
});

describe('cache key', () => {
  const msgs = [
    { role: 'system' as const, content: 'You are a judge.' },
    { role: 'user' as const, content: 'Rate this.' },
  ];
  const base = buildRequest(msgs, undefined, { model: 'gpt-4o-mini', temperature: 0 });

  it('is the same for the same model, messages, sampling parameters and response format', () => {
    const again = buildRequest(
      msgs.map((m) => ({ ...m })),
      { temperature: 0 },
      { model: 'gpt-4o-mini' },
    );
    expect(requestKey(again)).toBe(requestKey(base));
    expect(requestKey(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is the key earlier versions wrote (existing caches stay valid)', () => {
    // sha256 (hex) of this canonical JSON, as computed by earlier versions with createHash('sha256').
    expect(canonicalJson(base)).toBe(
      '{"messages":[{"content":"You are a judge.","role":"system"},{"content":"Rate this.","role":"user"}],"model":"gpt-4o-mini","params":{"temperature":0}}',
    );
    expect(requestKey(base)).toBe('7f010deddd4db4b31ab20bbeed3106f415c522b468bae85cfb0053defc26c53f');
    expect(sha256('é')).toBe(createHash('sha256').update('é', 'utf8').digest('hex'));
  });

  it('changes with each thing that determines the answer', () => {
    const keys = new Set([
      requestKey(base),
      requestKey(buildRequest(msgs, { model: 'gpt-4o' }, { model: 'gpt-4o-mini', temperature: 0 })),
      requestKey(
        buildRequest([msgs[0]!, { role: 'user', content: 'Rate this!' }], undefined, {
          model: 'gpt-4o-mini',
          temperature: 0,
        }),
      ),
      requestKey(buildRequest(msgs, { temperature: 0.7 }, { model: 'gpt-4o-mini' })),
      requestKey(buildRequest(msgs, { topP: 0.9 }, { model: 'gpt-4o-mini', temperature: 0 })),
      requestKey(buildRequest(msgs, { maxTokens: 10 }, { model: 'gpt-4o-mini', temperature: 0 })),
      requestKey(buildRequest(msgs, { seed: 1 }, { model: 'gpt-4o-mini', temperature: 0 })),
      requestKey(
        buildRequest(msgs, { responseFormat: { type: 'json_object' } }, { model: 'gpt-4o-mini', temperature: 0 }),
      ),
      requestKey(
        buildRequest([{ role: 'assistant', content: 'You are a judge.' }, msgs[1]!], undefined, {
          model: 'gpt-4o-mini',
          temperature: 0,
        }),
      ),
    ]);
    expect(keys.size).toBe(9);
  });

  it('ignores what does not determine the answer (abort signal, extra message fields)', () => {
    const withSignal = buildRequest(
      msgs,
      { signal: new AbortController().signal },
      { model: 'gpt-4o-mini', temperature: 0 },
    );
    const extra = buildRequest(
      msgs.map((m) => ({ ...m, name: 'x' }) as never),
      undefined,
      { model: 'gpt-4o-mini', temperature: 0 },
    );
    expect(requestKey(withSignal)).toBe(requestKey(base));
    expect(requestKey(extra)).toBe(requestKey(base));
  });

  it('rejects malformed messages with the field path', () => {
    expect(() => buildRequest([], undefined, { model: 'm' })).toThrow(/at least one message/);
    expect(() => buildRequest([{ role: 'robot', content: 'x' } as never], undefined, { model: 'm' })).toThrow(
      /messages\[0\]/,
    );
  });

  it('writes max tokens under the configured body field', () => {
    const req = buildRequest(msgs, { maxTokens: 5 }, { model: 'm' });
    expect(wireBody(req, 'max_tokens')).toMatchObject({ max_tokens: 5 });
    expect(wireBody(req, 'max_completion_tokens')).toMatchObject({ max_completion_tokens: 5 });
    expect(wireBody(req, 'max_tokens')).not.toHaveProperty('max_completion_tokens');
  });
});
