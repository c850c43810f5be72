import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addLlmOptions, llmOptionsFromFlags, type LlmFlags } from '../src/llm-options';

function parse(args: string[], defaults?: Parameters<typeof addLlmOptions>[1]): LlmFlags {
  const cmd = addLlmOptions(
    new Command('judge').exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} }),
    defaults,
  );
  cmd.parse(args, { from: 'user' });
  return cmd.opts<LlmFlags>();
}

describe('shared LLM flags', () => {
  it('turns every flag into createLlm options', () => {
    const flags = parse([
      '--model',
      'gpt-4o-mini',
      '--base-url',
      'http://localhost:11434/v1',
      '--api-key-env',
      'MY_KEY',
      '--concurrency',
      '8',
      '--rpm',
      '500',
      '--tpm',
      '30000',
      '--deadline',
      '1h30m',
      '--cache-dir',
      '/tmp/c',
      '--cache',
      'replay',
      '--max-cost',
      '2.5',
      '--temperature',
      '0',
      '--seed',
      '42',
      '--max-tokens',
      '300',
      '--timeout',
      '5000',
      '--max-attempts',
      '3',
      '--prices',
      'prices.json',
      '--llm-summary',
      'summary.json',
      '--no-progress',
    ]);
    expect(llmOptionsFromFlags(flags)).toEqual({
      model: 'gpt-4o-mini',
      baseURL: 'http://localhost:11434/v1',
      apiKeyEnv: 'MY_KEY',
      concurrency: 8,
      rpm: 500,
      tpm: 30_000,
      // 1 h 30 min = 5,400 s
      deadlineMs: 5_400_000,
      cacheDir: '/tmp/c',
      cache: 'replay',
      maxCost: 2.5,
      temperature: 0,
      seed: 42,
      maxTokens: 300,
      timeoutMs: 5000,
      maxAttempts: 3,
      pricesFile: 'prices.json',
      summaryFile: 'summary.json',
      progress: false,
    });
  });

  it('has defaults, a per-subcommand default model, --dry-run [--dry-run-file] and --batch', () => {
    expect(llmOptionsFromFlags(parse([], { model: 'gpt-4' }))).toEqual({
      model: 'gpt-4',
      apiKeyEnv: 'OPENAI_API_KEY',
      cache: 'use',
    });
    expect(llmOptionsFromFlags(parse(['--model', 'm', '--dry-run'])).dryRun).toBe(true);
    expect(llmOptionsFromFlags(parse(['--model', 'm', '--dry-run', '--dry-run-file', 'plan.jsonl'])).dryRun).toEqual({
      requestsFile: 'plan.jsonl',
    });
    expect(llmOptionsFromFlags(parse(['--model', 'm', '--batch'])).batch).toBe(true);
    expect(parse([], { temperature: 0 }).temperature).toBe(0);
  });

  it('rejects bad values with the flag name', () => {
    expect(() => parse(['--cache', 'sometimes'])).toThrow(/Allowed choices are use, refresh, off, replay/);
    expect(() => parse(['--concurrency', '0'])).toThrow(/--concurrency expects a positive integer/);
    expect(() => parse(['--max-cost', '-1'])).toThrow(/--max-cost expects a non-negative number/);
    expect(() => parse(['--rpm', '0'])).toThrow(/--rpm expects a positive number/);
    expect(() => parse(['--tpm', 'lots'])).toThrow(/--tpm expects a positive number/);
    expect(() => parse(['--deadline', 'soon'])).toThrow(/--deadline expects a duration such as 90s/);
    expect(parse(['--deadline', '90']).deadline).toBe(90_000);
    expect(parse(['--deadline', '1500ms']).deadline).toBe(1500);
    expect(() => parse(['--seed', '1.5'])).toThrow(/--seed expects an integer/);
    expect(() => llmOptionsFromFlags(parse([]))).toThrow(/--model is required/);
    expect(() => llmOptionsFromFlags(parse(['--model', 'm', '--dry-run-file', 'x']))).toThrow(
      /--dry-run-file needs --dry-run/,
    );
  });

  it('does not load @eval/llm (type import only), so the CLI stays lazy', () => {
    const source = readFileSync(join(__dirname, '..', 'src', 'llm-options.ts'), 'utf8');
    const imports = source.split('\n').filter((l) => /^import\s/.test(l) && l.includes('@eval/llm'));
    expect(imports.length).toBeGreaterThan(0);
    for (const l of imports) expect(l).toMatch(/^import type /);
  });

  it('the options it builds drive @eval/llm end to end against the test server', async () => {
    const { createLlm } = await import('@eval/llm');
    const { startTestServer } = await import('@eval/llm/testing');
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const server = await startTestServer();
    const dir = await mkdtemp(join(tmpdir(), 'cli-llm-'));
    process.env.CLI_LLM_TEST_KEY = 'sk-cli-test';
    try {
      const options = llmOptionsFromFlags(
        parse([
          '--model',
          'test-model',
          '--base-url',
          server.baseURL,
          '--api-key-env',
          'CLI_LLM_TEST_KEY',
          '--cache-dir',
          dir,
          '--temperature',
          '0',
        ]),
      );
      const llm = createLlm({ ...options, progress: false });
      const r = await llm.model.chat([{ role: 'user', content: 'from the CLI' }]);
      expect(r.text).toBe('echo: from the CLI');
      expect(server.chatRequests()[0]!.body).toEqual({
        model: 'test-model',
        messages: [{ role: 'user', content: 'from the CLI' }],
        temperature: 0,
      });
      await llm.close();
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
