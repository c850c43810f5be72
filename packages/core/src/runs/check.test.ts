import { describe, expect, it } from 'vitest';
import { checkRunManifest } from './check';
import { type RunManifest, runManifestSchema } from './schema';

// The writer checks a manifest by hand (no zod on the write path); the readers validate with the zod schema. Both must
// give the same verdict: every field of a valid manifest is replaced by values of every kind, and the hand check must
// accept exactly what the schema accepts (and name a path the schema names when both reject).
const valid: RunManifest = {
  schemaVersion: 1,
  id: '20261124T120000Z-abcd',
  benchmark: 'multiwoz',
  variant: '2022',
  system: 'ubar',
  createdAt: '2026-11-24T12:00:00.000Z',
  finishedAt: '2026-11-24T12:00:01.000Z',
  status: 'complete',
  tool: { cli: '0.1.0', packages: { '@eval/multiwoz': '0.1.0' }, node: 'v20.20.2', platform: 'linux-x64' },
  command: ['multiwoz', 'ubar.json'],
  inputs: [{ role: 'predictions', path: 'ubar.json', size: 10, sha256: 'a'.repeat(64) }],
  resources: [{ name: 'multiwoz', commit: '7f19ee0', sha256: 'b'.repeat(64), source: 'cache' }],
  options: { normalization: '2022' },
  llm: {
    endpointHost: '127.0.0.1:8080',
    model: 'm',
    modelReported: ['m-1'],
    sampling: { temperature: 0 },
    calls: { made: 3, cached: 1, failed: 0, retried: 0 },
    tokens: { prompt: 10, completion: 5 },
    costUsd: 0.5,
    prices: { input: 1 },
    batch: false,
    cache: 'c',
  },
  metrics: {
    Success: { value: 70.3, n: 1000, ci: [67.5, 73.1], ciMethod: 'bootstrap', unit: '%' },
    BLEU: { value: null, n: 0 },
  },
  counts: { items: 1000, evaluated: 1000, failed: 0, skipped: 0 },
  failures: [{ id: 'x', reason: 'y' }],
  artifacts: [{ path: 'out.json', format: 'mwzeval-json' }],
};

const candidates: unknown[] = [
  undefined,
  null,
  '',
  'x',
  'complete',
  'a'.repeat(64),
  'A'.repeat(64),
  0,
  1,
  -1,
  1.5,
  2 ** 53,
  -(2 ** 60),
  1e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  [],
  [1, 2],
  ['s'],
  {},
  { a: 1 },
  { a: 's' },
];

/** Every path of `value` (objects and arrays), with its parent and key. */
function* paths(value: unknown, path: string[] = []): Generator<string[]> {
  if (typeof value !== 'object' || value === null) return;
  for (const [k, v] of Object.entries(value)) {
    yield [...path, k];
    yield* paths(v, [...path, k]);
  }
}

function replaced(path: string[], replacement: unknown): unknown {
  const copy = structuredClone(valid) as unknown as Record<string, unknown>;
  let node = copy as Record<string, unknown>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string, unknown>;
  const last = path.at(-1)!;
  if (replacement === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = replacement;
  return copy;
}

describe('checkRunManifest', () => {
  it('accepts the valid manifest, as the schema does', () => {
    expect(runManifestSchema.safeParse(valid).success).toBe(true);
    expect(checkRunManifest(valid)).toBeUndefined();
  });

  it('gives the schema verdict for every field replaced by every kind of value', () => {
    let rejected = 0;
    let checked = 0;
    for (const path of paths(valid)) {
      for (const candidate of candidates) {
        const manifest = replaced(path, candidate);
        const zod = runManifestSchema.safeParse(manifest);
        const hand = checkRunManifest(manifest as RunManifest);
        checked++;
        expect(hand === undefined, `${path.join('.')} = ${String(candidate)}: zod says ${zod.success}`).toBe(
          zod.success,
        );
        if (!zod.success) {
          rejected++;
          expect(zod.error.issues.map((i) => i.path.join('.'))).toContain(hand!.path === '(root)' ? '' : hand!.path);
        }
      }
    }
    // the mutations exercise both verdicts many times over
    expect(checked).toBeGreaterThan(1000);
    expect(rejected).toBeGreaterThan(500);
    expect(checked - rejected).toBeGreaterThan(100);
  });

  it('rejects what is not an object', () => {
    for (const v of [null, 1, 'x', []])
      expect(checkRunManifest(v as unknown as RunManifest)).toEqual({ path: '(root)', message: 'expected an object' });
  });
});
