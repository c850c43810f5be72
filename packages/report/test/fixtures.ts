import { join } from 'node:path';
import { type RunItem, type RunMetric, seededRandom, startRun } from '@eval/core';

/**
 * Synthetic but well-formed runs, written with core's `startRun` exactly as the benchmark commands write them, with
 * the `detail` keys each benchmark emits. Headline metrics are computed here from the items (means of the per-item
 * values), so "equal to run.json" is checked against whatever the manifest says.
 */

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
function metric(
  values: Array<number | boolean | null | undefined>,
  scale = 1,
  unit?: string,
  part?: RunMetric['part'],
): RunMetric {
  const xs = values.filter((v): v is number | boolean => typeof v === 'number' || typeof v === 'boolean').map(Number);
  const m = mean(xs);
  return { value: m === null ? null : m * scale, n: xs.length, ...(unit ? { unit } : {}), ...(part ? { part } : {}) };
}
const evaluated = (items: RunItem[]) => items.filter((i) => !i.error);

const DOMAINS = ['restaurant', 'hotel', 'attraction', 'train', 'taxi'];
const REASONS = ['no entity offered', 'wrong entity', 'missing requested slot'];

export interface FixtureOptions {
  system?: string;
  seed?: number;
  /** Items that fail (carry `error`): the run becomes partial. */
  failed?: number;
  /** Leave the run unfinished: items.jsonl and the start marker only, no run.json. */
  unfinished?: boolean;
}

async function write(
  dir: string,
  benchmark: string,
  variant: string,
  items: RunItem[],
  metrics: Record<string, RunMetric>,
  opts: FixtureOptions,
): Promise<string> {
  const run = await startRun(dir, {
    benchmark,
    variant,
    system: opts.system ?? 'sys',
    command: ['dialeval', benchmark, 'synthetic'],
    options: { seed: opts.seed ?? 1 },
    tool: { cli: '0.1.0', packages: { '@eval/core': '0.1.0' } },
  });
  if (opts.unfinished) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'items.jsonl'), `${items.map((i) => JSON.stringify(i)).join('\n')}\n`);
    return dir;
  }
  await run.finish({ items, metrics });
  return dir;
}

function markFailed(items: RunItem[], n = 0): RunItem[] {
  for (let i = 0; i < n && i < items.length; i++)
    items[i] = { id: items[i]!.id, values: {}, error: 'HTTP 500 from the endpoint after 3 retries' };
  return items;
}

export async function multiwozRun(dir: string, dialogues: number, opts: FixtureOptions = {}): Promise<string> {
  const rand = seededRandom(opts.seed ?? 1);
  const items: RunItem[] = [];
  for (let d = 0; d < dialogues; d++) {
    const domains: Record<string, { inform: boolean | null; success: boolean | null; reason?: string }> = {};
    const k = 1 + Math.floor(rand() * 3);
    for (let j = 0; j < k; j++) {
      const name = DOMAINS[Math.floor(rand() * DOMAINS.length)]!;
      const inform = rand() < 0.8;
      const success = inform && rand() < 0.75;
      domains[name] = {
        inform,
        success,
        ...(success ? {} : { reason: inform ? REASONS[2]! : REASONS[Math.floor(rand() * 2)]! }),
      };
    }
    const ds = Object.values(domains);
    const reasons = [...new Set(ds.flatMap((x) => (x.reason ? [x.reason] : [])))];
    const inform = ds.every((x) => x.inform);
    const success = ds.every((x) => x.success);
    items.push({
      id: `mul${String(d).padStart(4, '0')}`,
      values: {
        inform,
        success,
        hyp_len: 40 + Math.floor(rand() * 80),
        ref_len: 40 + Math.floor(rand() * 80),
        matches_1: Math.floor(rand() * 40),
      },
      detail: {
        domains,
        reasons,
        goal: { domains: Object.keys(domains), requestables: { [Object.keys(domains)[0]!]: ['phone', 'postcode'] } },
      },
    });
  }
  markFailed(items, opts.failed);
  const ev = evaluated(items);
  const metrics = {
    Inform: metric(
      ev.map((i) => i.values.inform),
      100,
      '%',
    ),
    Success: metric(
      ev.map((i) => i.values.success),
      100,
      '%',
    ),
    BLEU: { value: 17.91, n: ev.length, unit: 'BLEU' },
  };
  // the per-domain breakdown as a package records it: the share of the dialogues with the domain (hand-written here
  // as the multiwoz package's figures; the report must show these, never its own)
  type Domains = Record<string, { inform: boolean | null; success: boolean | null }>;
  for (const d of DOMAINS) {
    const withDomain = ev.filter((i) => (i.detail!.domains as Domains)[d] !== undefined);
    if (!withDomain.length) continue;
    for (const [name, key] of [
      ['Inform', 'inform'],
      ['Success', 'success'],
    ] as const)
      Object.assign(metrics, {
        [`${name} (${d})`]: metric(
          withDomain.map((i) => (i.detail!.domains as Domains)[d]![key]),
          100,
          '%',
          { of: name, by: 'domain', value: d },
        ),
      });
  }
  return write(dir, 'multiwoz', 'mwzeval-2.0', items, metrics, opts);
}

const SPEAKERS = ['user', 'system'];
export async function llmJudgeRun(dir: string, turns: number, opts: FixtureOptions = {}): Promise<string> {
  const rand = seededRandom(opts.seed ?? 2);
  const items: RunItem[] = [];
  for (let t = 0; t < turns; t++) {
    const dialogue = `MUL${String(Math.floor(t / 8)).padStart(4, '0')}.json`;
    const turn = t % 8;
    const context = Array.from({ length: 2 * turn + 1 }, (_, c) => ({
      speaker: SPEAKERS[c % 2]!,
      text: `I would like a ${['cheap', 'moderate', 'expensive'][c % 3]} restaurant in the ${['north', 'centre', 'south'][c % 3]} serving food, turn ${c}.`,
    }));
    const accurate = rand() < 0.8;
    const complete = rand() < 0.7;
    const m21 = rand() < 0.75;
    items.push({
      id: `${dialogue}-${turn}`,
      group: dialogue,
      values: { judge: accurate && complete, accurate, complete, M21: m21, M24: m21 && rand() < 0.9 },
      detail: {
        context,
        predicted: { 'restaurant-pricerange': 'cheap', 'restaurant-area': turn % 2 ? 'north' : 'centre' },
        gold: { 'restaurant-pricerange': 'cheap', 'restaurant-area': 'north' },
        explanation: `The predicted state ${accurate ? 'matches' : 'does not match'} the user's request; </script><script>alert(1)</script> is just text.`,
        judge: { accurate, complete },
        rules: { M21: m21, M24: m21 },
        disagree: accurate && complete ? !m21 : m21,
      },
    });
  }
  markFailed(items, opts.failed);
  const ev = evaluated(items);
  const metrics = {
    TSA: metric(
      ev.map((i) => i.values.judge),
      1,
      'ratio',
    ),
    JGA: metric(
      ev.map((i) => i.values.M21),
      1,
      'ratio',
    ),
  };
  return write(dir, 'llm-judge', 'two-dimensional', items, metrics, opts);
}

export async function scorekeepingRun(dir: string, episodes: number, opts: FixtureOptions = {}): Promise<string> {
  const rand = seededRandom(opts.seed ?? 3);
  const items: RunItem[] = [];
  for (let e = 0; e < episodes; e++) {
    const probes = [];
    for (let round = 1; round <= 4; round++) {
      for (const kind of ['private', 'shared'] as const) {
        const correct = rand() < (kind === 'private' ? 0.9 : 0.5 + round * 0.1);
        probes.push({
          round,
          kind,
          question: `Does the ${kind === 'private' ? 'player' : 'game master'} know the departure time?`,
          answer: correct ? 'yes' : 'no',
          truth: 'yes',
          correct,
        });
      }
    }
    const played = rand() < 0.9;
    items.push({
      id: `0_travel/episode_${e}`,
      values: { accuracy: probes.filter((p) => p.correct).length / probes.length, played },
      detail: {
        probes,
        transcript: [
          { from: 'GM', to: 'Player 1', text: 'Your task: book a train. What time do you want to leave?' },
          { from: 'Player 1', to: 'GM', text: 'At 9:15, please.' },
        ],
        models: ['model-a', 'model-b'],
        outcome: played ? 'played' : 'aborted',
      },
    });
  }
  markFailed(items, opts.failed);
  const ev = evaluated(items);
  const metrics = {
    'Quality Score': metric(
      ev.map((i) => i.values.accuracy),
      100,
    ),
    '% Played': metric(
      ev.map((i) => i.values.played),
      100,
      '%',
    ),
  };
  // the private/shared curve as a package records it: probe accuracy per probing round and kind
  type Probe = { round: number; kind: string; correct: boolean };
  for (let round = 1; round <= 4; round++)
    for (const kind of ['private', 'shared'])
      Object.assign(metrics, {
        [`${kind} accuracy (round ${round})`]: metric(
          ev.flatMap((i) =>
            (i.detail!.probes as Probe[]).filter((p) => p.round === round && p.kind === kind).map((p) => p.correct),
          ),
          1,
          'ratio',
          { of: `${kind} accuracy`, by: 'round', value: String(round) },
        ),
      });
  return write(dir, 'scorekeeping', 'privateshared', items, metrics, opts);
}

export async function memoryRun(dir: string, questions: number, opts: FixtureOptions = {}): Promise<string> {
  const rand = seededRandom(opts.seed ?? 4);
  const items: RunItem[] = [];
  const verdicts = ['Correct', 'Hallucination', 'Omission'];
  for (let q = 0; q < questions; q++) {
    const kind = q % 3 === 0 ? 'memory' : q % 3 === 1 ? 'update' : 'question';
    const verdict = rand() < 0.7 ? verdicts[0]! : verdicts[1 + Math.floor(rand() * 2)]!;
    items.push({
      id: `${kind}:${q}`,
      values: { correct: verdict === 'Correct' },
      detail: {
        kind,
        question: `What did Martin plan for session ${q}?`,
        answer: 'A trip to Lisbon',
        reference: 'A trip to Lisbon in May',
        reasoning: `The answer ${verdict === 'Correct' ? 'matches' : 'contradicts'} the reference.`,
        verdict,
        user: 'martin',
        session: `s${q % 4}`,
      },
    });
  }
  markFailed(items, opts.failed);
  const ev = evaluated(items);
  const of = (k: string) => ev.filter((i) => (i.detail as { kind: string }).kind === k).map((i) => i.values.correct);
  const metrics = {
    'Memory Recall': metric(of('memory'), 1, 'ratio'),
    'Update Accuracy': metric(of('update'), 1, 'ratio'),
    'QA Accuracy': metric(of('question'), 1, 'ratio'),
  };
  return write(dir, 'memory', 'halumem', items, metrics, opts);
}

export async function cgtRun(dir: string, groups: number, opts: FixtureOptions = {}): Promise<string> {
  const rand = seededRandom(opts.seed ?? 5);
  const items: RunItem[] = [];
  for (let g = 1; g <= groups; g++) {
    const curve = [];
    for (let step = 1; step <= 6; step++) {
      const p = 0.4 + rand() * 0.5;
      const r = 0.4 + rand() * 0.5;
      curve.push({ step, p, r, f1: (2 * p * r) / (p + r), dsc: 0.3 + rand() * 0.6 });
    }
    const last = curve[curve.length - 1]!;
    items.push({
      id: `Group_${String(g).padStart(2, '0')}`,
      values: {
        final_f1: last.f1,
        final_dsc: last.dsc,
        mean_f1: mean(curve.map((c) => c.f1)),
        mean_dsc: mean(curve.map((c) => c.dsc)),
      },
      detail: { curve, statements: curve.map((c) => `block ${c.step} weighs 10 grams`) },
    });
  }
  markFailed(items, opts.failed);
  const ev = evaluated(items);
  const metrics = {
    F1: metric(
      ev.map((i) => i.values.final_f1),
      1,
      'ratio',
    ),
    DSC: metric(
      ev.map((i) => i.values.final_dsc),
      1,
      'ratio',
    ),
  };
  return write(dir, 'cgt', 'strict', items, metrics, opts);
}

export const FIXTURES = {
  multiwoz: multiwozRun,
  'llm-judge': llmJudgeRun,
  scorekeeping: scorekeepingRun,
  memory: memoryRun,
  cgt: cgtRun,
} as const;
