import { join } from 'node:path';
import { expect, it } from 'vitest';
import { defaultResources } from './defaults';
import { playEpisode } from './game-master';
import { generateInstances, readInstancesFile } from './instances';
import { chatModelAnswerer, mockAnswer, mockModel, perfectAnswer, perfectModel, scriptedAnswerer } from './players';
import { PythonRandom } from '@eval/core/python';
import { loadResourceDir } from './resources';
import { scoreEpisode } from './metrics/scorer';
import { CANONICAL_DIR, describeCanonical, HAS_CANONICAL, SHARED, itShared } from './test-support/shared';

const canonical = HAS_CANONICAL ? await loadResourceDir(CANONICAL_DIR) : undefined!;

describeCanonical('perfect player', () => {
  itShared('scores Main Score 100 on all 50 canonical instances and all 50 default-text instances', async () => {
    const sets = [
      { resources: canonical, instances: await readInstancesFile(join(SHARED, 'in/instances.json')) },
      { resources: defaultResources(), instances: generateInstances(defaultResources()) },
    ];
    for (const { resources, instances } of sets) {
      const answerer = chatModelAnswerer(perfectModel(resources));
      let n = 0;
      for (const exp of instances.experiments) {
        for (const inst of exp.game_instances) {
          const { interactions } = await playEpisode(inst, exp.name, resources, answerer);
          const s = scoreEpisode(interactions, { nSlots: Object.keys(inst.slots).length });
          expect(s.episodeScores['Main Score'], `${exp.name} ${inst.game_id}`).toBe(100);
          expect(s.episodeScores.Success).toBe(1);
          n++;
        }
      }
      expect(n).toBe(50);
    }
  });

  it('answers from the conversation alone', () => {
    const inst = generateInstances(canonical).experiments[0]!.game_instances[0]!;
    const base = [
      { role: 'user' as const, content: inst.initial_prompt },
      { role: 'assistant' as const, content: 'Ok.' },
    ];
    expect(
      perfectAnswer([...base, { role: 'user', content: 'TRAVEL-AGENT: Where do you want to go?' }], canonical),
    ).toBe('ANSWER: Lisbon.');
    const probe =
      'ME:  Does the travel agent know where you want to go to? Answer this question with yes or no and then stop.';
    expect(perfectAnswer([...base, { role: 'user', content: probe }], canonical)).toBe('ASIDE: No.');
    const after = [
      ...base,
      { role: 'user' as const, content: 'TRAVEL-AGENT: Where do you want to go?' },
      { role: 'assistant' as const, content: 'ANSWER: Lisbon.' },
    ];
    expect(perfectAnswer([...after, { role: 'user', content: probe }], canonical)).toBe('ASIDE: Yes.');
    expect(() => perfectAnswer([{ role: 'user', content: 'hello' }], canonical)).toThrow(/no instance block/);
  });
});

describeCanonical('mock player (clembench Answerer._custom_response)', () => {
  it('draws prefix, tag and continuation from a CPython random stream (hand-derived from the same draws)', () => {
    const rng = new PythonRandom(3);
    const check = new PythonRandom(3);
    for (let i = 0; i < 50; i++) {
      const probe = i % 2 === 0;
      const text = mockAnswer(rng, probe ? 'ME: question' : 'TRAVEL-AGENT: request', canonical.words);
      const r = check.random();
      const begin = r < 0.4 ? 'no, ' : r < 0.8 ? 'yes, ' : '';
      const tag = check.random() < 0.9 ? (probe ? 'ASIDE: ' : 'ANSWER: ') : '';
      const tail = check.random() < 0.9 ? 'placeholder.' : 'placeholder \n invalid stuff.';
      expect(text).toBe(`${tag}${begin}${tail}`);
    }
  });

  it('is deterministic, independent of probe concurrency, and aborts some episodes', async () => {
    const instances = generateInstances(defaultResources(), { instancesPerExperiment: 4 });
    const res = defaultResources();
    let aborted = 0;
    for (const exp of instances.experiments) {
      for (const inst of exp.game_instances) {
        const a = await playEpisode(inst, exp.name, res, chatModelAnswerer(mockModel(res, { seed: 1 })), {
          concurrentProbes: true,
        });
        const b = await playEpisode(inst, exp.name, res, chatModelAnswerer(mockModel(res, { seed: 1 })), {
          concurrentProbes: false,
        });
        expect(a.interactions.probes).toEqual(b.interactions.probes);
        expect(a.interactions['Request Count']).toEqual(b.interactions['Request Count']);
        if (a.interactions.Aborted) aborted++;
      }
    }
    expect(aborted).toBeGreaterThan(0);
  });
});

describeCanonical('scripted player', () => {
  it('fails clearly when the script has no answer for a call (recorded as a player failure)', async () => {
    const inst = generateInstances(canonical).experiments[0]!.game_instances[0]!;
    const script = {
      rounds: [{ probes: [['ASIDE: No.'], ['ASIDE: No.'], ['ASIDE: No.'], ['ASIDE: No.'], ['ASIDE: No.']] }],
    };
    const r = await playEpisode(inst, 'travel-booking', canonical, scriptedAnswerer(script));
    expect(r.abortReason).toBe('player failure: the script has no recorded slot answer for round 1');
    expect(r.interactions['Played Probe Rounds']).toBe(1);
  });
});
