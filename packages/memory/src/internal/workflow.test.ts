import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatModel } from '@eval/core';
import { describe, expect, it } from 'vitest';
import { INCOMPLETE_MARKER } from './judge';
import { SHARED_MEMORY, itMemory } from './test/shared';
import { loadEvalRecords } from './files';
import { loadMemorySystem, readEvalRecords, unfinishedJudgeRuns } from './workflow';

/** A model that is never called: building a baseline makes no call. */
const model = {} as ChatModel;

describe('loadMemorySystem', () => {
  it('builds a baseline by name with its options', async () => {
    const { system } = await loadMemorySystem('full-context', { model, systemOptions: ['maxContextChars=1000'] });
    expect(system.name).toBe('full-context');
  });
  it('refuses what cannot work, naming the flag', async () => {
    await expect(loadMemorySystem('full-context')).rejects.toThrow(/answers with a model: pass --model/);
    await expect(loadMemorySystem('extract-retrieve', { model, systemOptions: ['bogus=1'] })).rejects.toThrow(
      /unknown --system-option for extract-retrieve: bogus/,
    );
    await expect(loadMemorySystem('full-context', { model, systemOptions: ['oops'] })).rejects.toThrow(
      /expects key=value, got "oops"/,
    );
    await expect(loadMemorySystem('full-context', { model, systemOptions: ['maxContextChars=-1'] })).rejects.toThrow(
      /positive number/,
    );
    await expect(loadMemorySystem('full-context', { model, answerPromptsDir: '/nowhere' })).rejects.toThrow(
      /--answer-prompts needs --answer-prompt/,
    );
    await expect(loadMemorySystem(join(tmpdir(), 'no-such-memory-system.mjs'))).rejects.toThrow(
      /cannot load the memory system module/,
    );
  });
});

describe('judged records', () => {
  itMemory('readEvalRecords of one file is that file, pooled twice it is both', async () => {
    const file = join(SHARED_MEMORY, 'aggregate_fixture_sessions0-11.json');
    const one = await loadEvalRecords(file);
    const read = await readEvalRecords([file]);
    expect(read.records).toEqual(one.records);
    const twice = await readEvalRecords([file, file]);
    expect(twice.files).toEqual([file, file]);
    expect(twice.records.question_answering_records).toHaveLength(2 * one.records.question_answering_records.length);
    expect(twice.timeConsuming).toBeUndefined();
  });

  it('unfinishedJudgeRuns names the work directories marked incomplete, with the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-unfinished-'));
    try {
      const done = join(dir, 'done.tmp2');
      const open = join(dir, 'open.tmp2');
      mkdirSync(done);
      mkdirSync(open);
      writeFileSync(join(open, INCOMPLETE_MARKER), '2 user(s) not judged\nbudget reached\n');
      const file = join(dir, 'stat.json');
      writeFileSync(file, '{}');
      expect(await unfinishedJudgeRuns([done, open, file])).toEqual([`${open}: 2 user(s) not judged; budget reached`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
