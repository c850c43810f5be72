import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { readRunManifest } from '@eval/core';
import { afterEach, describe, expect, it } from 'vitest';
import { addRunOptions, openRun, rememberCommandLine, scrubArgv, scrubOptions, systemFromInput } from './run-record';

const work = mkdtempSync(join(tmpdir(), 'dialeval-run-record-'));
const savedRuns = process.env.DIALEVAL_RUNS;

afterEach(() => {
  if (savedRuns === undefined) delete process.env.DIALEVAL_RUNS;
  else process.env.DIALEVAL_RUNS = savedRuns;
});

describe('scrubArgv: no key reaches a run record', () => {
  it('redacts key-like flag values (not `--*-env NAME`), key-shaped words, URL user info and queries; keeps the rest', () => {
    expect(
      scrubArgv([
        'llm-judge',
        'run',
        '--api-key',
        'abc',
        '--token=xyz',
        '--api-key-env',
        'OPENAI_API_KEY',
        'sk-proj-abcdefghijklmnop',
        'https://user:pw@api.example.com/v1?key=secret',
        '--model',
        'gpt-4o',
        'preds.json',
        '--max-tokens',
        '256',
        '--hf-token',
        'hf_x',
      ]),
    ).toEqual([
      'llm-judge',
      'run',
      '--api-key',
      '***',
      '--token=***',
      '--api-key-env',
      'OPENAI_API_KEY',
      '***',
      'https://***@api.example.com/v1?***',
      '--model',
      'gpt-4o',
      'preds.json',
      '--max-tokens',
      '256',
      '--hf-token',
      '***',
    ]);
  });
});

describe('scrubOptions', () => {
  it('redacts key-named and key-shaped string options, keeps the rest', () => {
    expect(
      scrubOptions({
        apiKey: 'abc',
        hf_token: 'x',
        apiKeyEnv: 'OPENAI_API_KEY',
        maxTokens: 256,
        model: 'gpt-4o',
        header: 'sk-abcdefghijklmnopq',
      }),
    ).toEqual({
      apiKey: '***',
      hf_token: '***',
      apiKeyEnv: 'OPENAI_API_KEY',
      maxTokens: 256,
      model: 'gpt-4o',
      header: '***',
    });
  });
});

describe('systemFromInput', () => {
  it('names the system after the main input file', () => {
    expect(systemFromInput('out/augpt.json')).toBe('augpt');
    expect(systemFromInput('out/hdsa.json.gz')).toBe('hdsa');
    expect(systemFromInput('cgqa_output/dp-gpt4o/')).toBe('dp-gpt4o');
    expect(systemFromInput('my system.jsonl')).toBe('my_system');
  });
});

describe('openRun', () => {
  it('returns undefined without --run and DIALEVAL_RUNS', async () => {
    delete process.env.DIALEVAL_RUNS;
    expect(await openRun({}, { benchmark: 'toy', variant: 'v1', input: 'a.json' })).toBeUndefined();
  });

  it('--run DIR: fills tool, command (scrubbed) and the system from the input', async () => {
    rememberCommandLine(['toy', 'a.json', '--api-key', 'hunter2']);
    const dir = join(work, 'explicit');
    const w = (await openRun(
      { run: dir },
      { benchmark: 'multiwoz', variant: '2022', input: 'preds/a.json', options: { bleu: true } },
    ))!;
    expect(w.dir).toBe(dir);
    const m = await w.finish({ items: [], metrics: {} });
    expect(m.system).toBe('a');
    expect(m.command).toEqual(['toy', 'a.json', '--api-key', '***']);
    expect(m.tool.cli).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.keys(m.tool.packages).sort()).toEqual(['@eval/core', '@eval/multiwoz']);
    expect(m.options).toEqual({ bleu: true });
    expect((await readRunManifest(dir)).id).toBe(m.id);
  });

  it('records the descriptor’s package (default @eval/<benchmark> when installed) and cluster unit', async () => {
    const own = (await openRun({ run: join(work, 'pkg-default') }, { benchmark: 'multiwoz', variant: '2022' }))!;
    expect((await own.finish({ items: [], metrics: {} })).benchmarkPackage).toBe('@eval/multiwoz');
    const third = (await openRun(
      { run: join(work, 'pkg-third') },
      {
        benchmark: 'distinct',
        variant: 'v1',
        descriptor: { package: 'distinct-bench', cluster: { unit: 'dialogue' } },
      },
    ))!;
    const m = await third.finish({ items: [], metrics: {} });
    expect([m.benchmarkPackage, m.cluster]).toEqual(['distinct-bench', { unit: 'dialogue' }]);
    const none = (await openRun({ run: join(work, 'pkg-none') }, { benchmark: 'toy', variant: 'v1' }))!;
    expect((await none.finish({ items: [], metrics: {} })).benchmarkPackage).toBeUndefined();
  });

  it('DIALEVAL_RUNS=<parent>: <parent>/<benchmark>/<system>/<timestamp>, --system wins, two runs never share a directory', async () => {
    const parent = join(work, 'parent');
    process.env.DIALEVAL_RUNS = parent;
    const one = (await openRun({ system: 'mine' }, { benchmark: 'toy', variant: 'v1', input: 'a.json' }))!;
    const two = (await openRun({ system: 'mine' }, { benchmark: 'toy', variant: 'v1', input: 'a.json' }))!;
    expect(one.dir.startsWith(join(parent, 'toy', 'mine'))).toBe(true);
    expect(two.dir).not.toBe(one.dir);
    expect(readdirSync(join(parent, 'toy', 'mine'))).toHaveLength(2);
    expect(existsSync(join(one.dir, 'run.json'))).toBe(false);
  });
});

describe('addRunOptions', () => {
  it('adds --run and --system', () => {
    const cmd = addRunOptions(new Command('x').exitOverride());
    cmd.parse(['--run', 'r', '--system', 's'], { from: 'user' });
    expect(cmd.opts()).toEqual({ run: 'r', system: 's' });
  });
});
