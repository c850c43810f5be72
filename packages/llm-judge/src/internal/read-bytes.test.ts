import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { FileDigests } from '@eval/core';
import { describe, expect, it } from 'vitest';
import { readOutputEntries } from './recorded';
import { readTurnRecords } from './records';

const work = mkdtempSync(join(tmpdir(), 'llm-judge-read-bytes-'));
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const record = {
  flag: 'PMUL4648.json-0',
  predict_turn_label: { 'restaurant-name': 'nusha' },
  ground_truth: {},
  predict: { 'restaurant-name': 'nusha' },
  system: '',
  user: 'please find a restaurant called nusha .',
  history: [],
  ground_truth_m24: { 'restaurant-name': 'nusha' },
};

describe('readers hand the bytes they read to onRead (a run record hashes them instead of reading the file again)', () => {
  it('readOutputEntries: the output file as read; the entries are those read without onRead', async () => {
    const file = join(work, 'direct_outputs.json');
    writeFileSync(file, `${JSON.stringify([[record, '{"incorrect_domain_slot": {}}', 'the prompt']], null, 2)}\n`);
    const seen: Array<[string, string]> = [];
    const entries = await readOutputEntries(file, { onRead: (f, bytes) => seen.push([f, sha(bytes)]) });
    expect(seen).toEqual([[file, sha(readFileSync(file))]]);
    expect(entries).toEqual(await readOutputEntries(file));
    expect(entries.map((e) => [e.record.flag, e.output, e.prompt])).toEqual([
      ['PMUL4648.json-0', '{"incorrect_domain_slot": {}}', 'the prompt'],
    ]);
  });

  it('readTurnRecords: a gzip record file as stored (compressed bytes); FileDigests keeps the sha256 and size of the bytes read', async () => {
    const file = join(work, 'records.json.gz');
    writeFileSync(file, gzipSync(Buffer.from(JSON.stringify([record]))));
    const digests = new FileDigests();
    const records = await readTurnRecords(file, { onRead: digests.onRead });
    expect(records.map((r) => r.flag)).toEqual(['PMUL4648.json-0']);
    const stored = readFileSync(file);
    writeFileSync(file, 'changed after the evaluation read it'); // the digest is of the bytes read, not of the file now
    expect(await digests.get(file)).toEqual({ size: stored.length, sha256: sha(stored) });
  });
});
