import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { defaultResources } from './defaults';
import {
  assertNoOverlaps,
  checkSlotValues,
  formatInstances,
  gameInstanceSchema,
  generateInstances,
  readInstancesFile,
  renderInitialPrompt,
  renderInstanceBlock,
} from './instances';
import { parsePyJson } from './internal/pyjson';
import { EXPERIMENTS, loadResourceDir, type GameResources } from './resources';
import { CANONICAL_DIR, describeCanonical, describeShared, HAS_CANONICAL, SHARED } from './test-support/shared';

const canonical = HAS_CANONICAL ? await loadResourceDir(CANONICAL_DIR) : undefined!;

describeShared('instance generator', () => {
  it('reproduces in/instances.json byte for byte from seed 42 (canonical resources)', () => {
    const generated = formatInstances(generateInstances(canonical, { seed: 42 }));
    const reference = readFileSync(join(SHARED, 'in/instances.json'), 'utf8');
    expect(generated.length).toBe(reference.length);
    expect(generated === reference).toBe(true);
  });

  it('reproduces in/instances_v1.6.json (seed 2102) with the older `<some text>` placeholder', () => {
    const older: GameResources = structuredClone(canonical);
    for (const exp of EXPERIMENTS)
      older.experiments[exp].template = older.experiments[exp].template.split('<one sentence>').join('<some text>');
    const generated = generateInstances(older, { seed: 2102 });
    const reference = parsePyJson(readFileSync(join(SHARED, 'in/instances_v1.6.json'), 'utf8'));
    expect(generated).toEqual(reference);
    // The file is pretty-printed with indent 2; compare the text too.
    expect(formatInstances(generated, { indent: 2 })).toBe(
      readFileSync(join(SHARED, 'in/instances_v1.6.json'), 'utf8').trimEnd(),
    );
  });

  it('renders the worked example of travel-booking game 0 (spec §1.3)', () => {
    const block = renderInstanceBlock('Travel', {
      from: 'Paris',
      to: 'Lisbon',
      by: 'Overnight bus',
      class: 'Economy',
      when: 'In two weeks',
    });
    expect(block).toBe('WHAT: Travel\nFROM: Paris\nTO: Lisbon\nBY: Overnight bus\nCLASS: Economy\nWHEN: In two weeks');
    const prompt = renderInitialPrompt(
      canonical.experiments['travel-booking'].template,
      block,
      'TRAVEL-AGENT',
      canonical.words,
    );
    expect(prompt).toContain('start with ME: . Please answer');
    expect(prompt).toContain('Please reply in the form: ANSWER: <one sentence>');
    expect(prompt).toContain('The travel agent does not know about it yet. \n');
    const first = generateInstances(canonical).experiments[0]!.game_instances[0]!;
    expect(first.initial_prompt).toBe(prompt);
    expect(first.request_order).toEqual(['to', 'when', 'by', 'from', 'class']);
  });

  it('generates valid, different instance sets from other seeds and from the default texts', () => {
    const a = generateInstances(canonical, { seed: 7, instancesPerExperiment: 3 });
    const b = generateInstances(defaultResources(), { seed: 42 });
    for (const set of [a, b]) {
      expect(set.experiments.map((e) => e.name)).toEqual([...EXPERIMENTS]);
      for (const exp of set.experiments)
        for (const inst of exp.game_instances) expect(gameInstanceSchema.safeParse(inst).success).toBe(true);
    }
    expect(a.experiments[0]!.game_instances).toHaveLength(3);
    expect(formatInstances(a)).not.toBe(
      formatInstances(generateInstances(canonical, { seed: 42, instancesPerExperiment: 3 })),
    );
    const things = b.experiments.find((e) => e.name === 'things-places')!.game_instances[0]!;
    expect(Object.keys(things.slots)).toHaveLength(15);
    expect(Object.keys(things.probes)).toHaveLength(16);
    expect(b.experiments[0]!.game_instances[0]!.tag).toBe('BOOKING-CLERK');
  });

  it('reads instance files with validation that names the field', async () => {
    const file = join(SHARED, 'in/instances.json');
    const parsed = await readInstancesFile(file);
    expect(parsed.experiments).toHaveLength(5);
    const broken = structuredClone(parsed.experiments[0]!.game_instances[0]!) as unknown as Record<string, unknown>;
    broken.request_order = ['to', 'to', 'by', 'from', 'class'];
    const result = gameInstanceSchema.safeParse(broken);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['request_order']);
  });
});

describeCanonical('value-overlap check (checkvalues.py)', () => {
  it('reports nothing for the canonical texts in the reference (case-sensitive) form', () => {
    expect(checkSlotValues(canonical, 'case-sensitive')).toEqual([]);
    expect(() => assertNoOverlaps(canonical)).not.toThrow();
  });

  it('finds the overlaps the game actually trips over in the case-insensitive form (spec §2.4)', () => {
    const found = checkSlotValues(canonical, 'case-insensitive');
    expect(found).toContainEqual(
      expect.objectContaining({
        experiment: 'travel-booking',
        kind: 'contained',
        value: 'First',
        slot: 'class',
        other: expect.objectContaining({ value: 'Next month, first week', slot: 'when' }),
      }),
    );
    expect(() => assertNoOverlaps(canonical, 'case-insensitive')).toThrow(
      /slot_values\.json, field class\[0\]: overlapping slot values \(case-insensitive check\)/,
    );
  });

  it('the default texts pass both forms', () => {
    expect(checkSlotValues(defaultResources(), 'case-insensitive')).toEqual([]);
  });

  it('reports duplicates and contained values with file and field', () => {
    const res = defaultResources();
    res.experiments.restaurant.slotValues.drink!.push('Paella');
    res.experiments['travel-booking'].slotValues.to!.push('Dublin Airport');
    const found = checkSlotValues(res);
    expect(found).toContainEqual(
      expect.objectContaining({
        experiment: 'restaurant',
        kind: 'duplicate',
        value: 'Paella',
        slot: 'main-dish',
        index: 1,
        other: { value: 'Paella', slot: 'drink', index: 10 },
      }),
    );
    expect(found).toContainEqual(
      expect.objectContaining({
        experiment: 'travel-booking',
        kind: 'contained',
        value: 'Dublin',
        slot: 'from',
        index: 0,
      }),
    );
    expect(() => assertNoOverlaps(res)).toThrow(/travel-booking\/slot_values\.json, field from\[0\]/);
  });
});
