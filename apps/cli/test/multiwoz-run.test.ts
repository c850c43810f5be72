import { type MultiwozSubset21, multiwozSubset21 } from '../../../test-support/multiwoz-subset21';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, readRun, resourceFileListSha256 } from '@eval/core';
import { runBenchmark } from '@eval/multiwoz';
import { beforeAll, expect, it } from 'vitest';
import { describeWithReferenceData, hasReferenceData, runCli } from './cli';

const HAS_MULTIWOZ = hasReferenceData('multiwoz');
const work = mkdtempSync(join(tmpdir(), 'dialeval-mwz-run-'));
const data = join(work, 'data');

let mwz: MultiwozSubset21;

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const env = { DIALEVAL_HOME: join(work, 'home'), DIALEVAL_MULTIWOZ_DIR: '', DIALEVAL_RUNS: '' };
const ALL = ['--bleu', '--success', '--richness', '--dst'];
let augpt = '';
let ubar = '';

beforeAll(() => {
  if (!HAS_MULTIWOZ) return;
  mwz = multiwozSubset21(work);
  augpt = mwz.subset('augpt');
  ubar = mwz.subset('ubar');
});

describeWithReferenceData('multiwoz')('dialeval multiwoz --run', () => {
  it('writes run.json, items.jsonl and mwzeval.json; native outputs unchanged; recompute(items) = run.json metrics', async () => {
    const plainOut = join(work, 'plain.json');
    const plain = await runCli(['multiwoz', augpt, '--data', data, ...ALL, '--format', 'json', '--out', plainOut], {
      env,
    });
    expect(plain.code, plain.stderr).toBe(0);
    const runDir = join(work, 'runs', 'augpt');
    const out = join(work, 'with-run.json');
    const perDialogue = join(work, 'with-run.jsonl');
    const r = await runCli(
      [
        'multiwoz',
        augpt,
        '--data',
        data,
        ...ALL,
        '--format',
        'json',
        '--out',
        out,
        '--per-dialogue',
        perDialogue,
        '--run',
        runDir,
        '--ci',
        '--samples',
        '100',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    // the native output is byte-identical with and without the run, and the run holds the same bytes
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(plainOut, 'utf8'));
    expect(readFileSync(join(runDir, 'mwzeval.json'), 'utf8')).toBe(readFileSync(out, 'utf8'));

    const run = await readRun(runDir);
    const m = run.manifest;
    expect([m.benchmark, m.variant, m.system, m.status]).toEqual(['multiwoz', 'mwzeval-2022', 'augpt', 'complete']);
    expect(m.inputs).toEqual([
      { role: 'predictions', path: augpt, size: readFileSync(augpt).length, sha256: sha256(augpt) },
    ]);
    expect(m.resources).toHaveLength(1);
    expect(m.resources[0]).toMatchObject({ name: 'multiwoz', source: 'option' });
    // hashed from the bytes the evaluation read: the same digest as the data files on disk (v2022: its restaurant database)
    const used = [
      'references/mwz22.json',
      'database/attraction_db.json',
      'database/hotel_db.json',
      'database/restaurant_db.v2022.json',
      'database/train_db.json',
      'goals.json',
      'booked_domains.json',
      'gold_states.json',
    ];
    expect(m.resources[0]!.sha256).toBe(
      resourceFileListSha256(used.map((path) => ({ path, sha256: sha256(join(data, path)) }))),
    );
    expect(m.options).toMatchObject({
      bleu: true,
      success: true,
      richness: true,
      dst: true,
      normalization: '2022',
      references: ['mwz22'],
      addSlotDomains: false,
      strictDst: false,
      samples: 100,
    });
    expect(m.artifacts).toEqual([
      { path: 'mwzeval.json', format: 'mwzeval-json' },
      { path: out, format: 'mwzeval-json' },
      { path: perDialogue, format: 'dialeval-multiwoz-per-dialogue-jsonl' },
    ]);
    expect(m.counts).toEqual({ items: 21, evaluated: 21, failed: 0, skipped: 0 });
    expect(run.items.map((i) => i.id)).toEqual(Object.keys(JSON.parse(readFileSync(augpt, 'utf8')) as object));

    // the recorded metrics are the native ones and recompute exactly from the items
    const native = JSON.parse(readFileSync(out, 'utf8')) as {
      bleu: { mwz22: number };
      success: { inform: Record<string, number>; success: Record<string, number> };
      dst: { joint_accuracy: number };
    };
    expect(m.metrics.BLEU!.value).toBe(native.bleu.mwz22);
    expect(m.metrics.Inform!.value).toBe(native.success.inform.total);
    expect(m.metrics.JGA!.value).toBe(native.dst.joint_accuracy);
    expect(m.metrics.BLEU!.ci).toHaveLength(2);
    const recomputed = runBenchmark.recompute(run.items);
    // mwzeval's per-domain figures, as `Inform (<domain>)` and `Success (<domain>)`
    const domains = Object.keys(native.success.inform).filter((d) => d !== 'total');
    expect(domains.length).toBeGreaterThan(0);
    for (const d of domains) {
      expect(recomputed[`Inform (${d})`], d).toBe(native.success.inform[d]);
      expect(recomputed[`Success (${d})`], d).toBe(native.success.success[d]);
    }
    expect(
      Object.keys(recomputed)
        .filter((k) => !/^(Inform|Success) \(/.test(k))
        .sort(),
    ).toEqual(['BLEU', 'Inform', 'JGA', 'Slot F1', 'Slot Precision', 'Slot Recall', 'Success']);
    for (const [k, v] of Object.entries(recomputed)) expect(m.metrics[k]!.value, k).toBe(v);
    expect(Object.keys(m.metrics).filter((k) => k.startsWith('richness.'))).toHaveLength(7);
  });

  it('$DIALEVAL_RUNS: the run goes to <parent>/multiwoz/<system>/<timestamp>; two runs compare by dialogue', async () => {
    const parent = join(work, 'parent');
    for (const file of [augpt, ubar]) {
      const r = await runCli(['multiwoz', file, '--data', data, '--success', '--bleu'], {
        env: { ...env, DIALEVAL_RUNS: parent },
      });
      expect(r.code, r.stderr).toBe(0);
    }
    const dirOf = (system: string) => {
      const base = join(parent, 'multiwoz', system);
      const stamps = readdirSync(base);
      expect(stamps).toHaveLength(1);
      return join(base, stamps[0]!);
    };
    const runs = [await readRun(dirOf('augpt')), await readRun(dirOf('ubar'))];
    const result = compareRuns(runs, runBenchmark, { resamples: 200 });
    const pair = result.pairs[0]!;
    expect(pair.paired).toBe(21);
    const metric = (name: string) => pair.metrics.find((x) => x.name === name)!;
    expect(metric('BLEU').delta).toBe(runs[1]!.manifest.metrics.BLEU!.value! - runs[0]!.manifest.metrics.BLEU!.value!);
    expect(metric('Success').mcnemar!.outcome).toBe('success');

    // the same through `dialeval compare` (the package's runBenchmark, seeded: the same figures as from code)
    const cli = await runCli(['compare', dirOf('augpt'), dirOf('ubar'), '--format', 'json', '--resamples', '200'], {
      env,
    });
    expect(cli.code, cli.stderr).toBe(0);
    const json = JSON.parse(cli.stdout) as typeof result & { recomputedBy: string };
    expect(json.recomputedBy).toBe('@eval/multiwoz');
    expect(json.pairs[0]!.metrics).toEqual(JSON.parse(JSON.stringify(pair.metrics)));
  });

  it('without --run or $DIALEVAL_RUNS no run is written', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dialeval-mwz-norun-'));
    const r = await runCli(['multiwoz', augpt, '--data', data, '--success'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
  });
});
