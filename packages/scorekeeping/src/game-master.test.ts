import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from '@eval/core';
import { describe, expect, it } from 'vitest';
import { parseProbeAnswer, parseSlotAnswer, playEpisode, probeText, type GameMasterOptions } from './game-master';
import { readInstancesFile, type GameInstance } from './instances';
import { chatModelAnswerer, perfectModel, scriptedAnswerer, scriptFromInteractions } from './players';
import { parsePyJson } from './internal/pyjson';
import { loadResourceDir } from './resources';
import { formatScoresJson, scoreEpisode } from './metrics/scorer';
import {
  CANONICAL_DIR,
  describeShared,
  experimentOf,
  HAS_CANONICAL,
  HAS_SHARED,
  itCanonical,
  recordedEpisodeDirs,
  SHARED,
} from './test-support/shared';
import { hasContinuation } from './internal/text';
import type { Answerer, AnswererCall, Interactions } from './types';

const canonical = HAS_CANONICAL ? await loadResourceDir(CANONICAL_DIR) : undefined!;
const instances = HAS_SHARED ? await readInstancesFile(join(SHARED, 'in/instances.json')) : undefined!;
const travel0 = instances ? instances.experiments[0]!.game_instances[0]! : undefined!;
/** The Questioner's request for the first slot (`to`) of travel-booking game 0. */
const firstRequest = HAS_SHARED
  ? `TRAVEL-AGENT: ${canonical.experiments['travel-booking'].requests.to![travel0.requests.to!]}`
  : '';

/** An Answerer from a policy over the call (round, slot, probe, try). */
function policy(fn: (call: AnswererCall, messages: ChatMessage[]) => string, name = 'policy'): Answerer {
  return { name, respond: async (messages, call) => fn(call, messages) };
}

/** The perfect probe policy of §9 A: yes iff the probed slot was requested in an earlier round. */
const requestedBefore = (instance: GameInstance, call: AnswererCall) =>
  instance.request_order.indexOf(call.slot) + 1 <= call.round;

/** The transcript without timestamps (and without fields later framework versions add, such as event labels or `meta`). */
const strip = (logs: Interactions) => {
  const { meta: _meta, ...rest } = logs as Interactions & { meta?: unknown };
  return {
    ...rest,
    turns: logs.turns.map((t) =>
      t.map((e) => ({ from: e.from, to: e.to, action: { type: e.action.type, content: e.action.content } })),
    ),
  };
};

describeShared('game master replay parity: recorded clembench episodes replayed through the scripted player', () => {
  const dirs = recordedEpisodeDirs();
  it.each(dirs.map((d) => [d.split(/[\\/]/).slice(-3).join('/'), d]))('%s', async (_name, dir) => {
    const logs = parsePyJson(readFileSync(join(dir, 'interactions.json'), 'utf8')) as Interactions;
    const instance = parsePyJson(readFileSync(join(dir, 'instance.json'), 'utf8')) as GameInstance;
    const modelName = logs.players['Player 1']!.replace(/^Answerer: /, '');
    for (const concurrentProbes of [false, true]) {
      const { interactions } = await playEpisode(
        instance,
        experimentOf(dir),
        canonical,
        scriptedAnswerer(scriptFromInteractions(logs)),
        {
          modelName,
          concurrentProbes,
        },
      );
      expect(interactions.probes).toEqual(logs.probes);
      expect(Object.entries(interactions.realised_slots)).toEqual(Object.entries(logs.realised_slots));
      expect(interactions['Request Count']).toEqual(logs['Request Count']);
      expect(interactions['Parsed Request Count']).toEqual(logs['Parsed Request Count']);
      expect(interactions['Violated Request Count']).toEqual(logs['Violated Request Count']);
      expect(interactions['Filled Slots']).toEqual(logs['Filled Slots']);
      expect(interactions.Aborted).toBe(logs.Aborted);
      expect(interactions['Played Probe Rounds']).toBe(logs['Played Probe Rounds']);
      const texts = (l: Interactions, type: string, to = 'Player 1') =>
        l.turns
          .flat()
          .filter((e) => e.action.type === type && e.to === to)
          .map((e) => e.action.content);
      expect(texts(interactions, 'probe question')).toEqual(texts(logs, 'probe question'));
      expect(texts(interactions, 'send message')).toEqual(texts(logs, 'send message'));
      // Every event of the transcript (except timestamps), in order, and the top-level keys in order.
      expect(strip(interactions)).toEqual(strip(logs));
      expect(Object.keys(interactions)).toEqual(Object.keys(logs).filter((k) => k !== 'meta'));
    }
  });
});

describeShared('worked examples of spec §9 (travel-booking game 0)', () => {
  const probesTable = (logs: Interactions) => logs.probes.map((round) => round.map((p) => [p.gt, p.value, p.tries]));

  it('A — perfect player', async () => {
    const { interactions } = await playEpisode(
      travel0,
      'travel-booking',
      canonical,
      chatModelAnswerer(perfectModel(canonical)),
    );
    expect(interactions.realised_slots).toEqual({ to: 0, when: 1, by: 2, from: 3, class: 4 });
    expect(interactions['Request Count']).toEqual([5, 6, 6, 6, 6, 6]);
    expect(interactions['Parsed Request Count']).toEqual([5, 6, 6, 6, 6, 6]);
    expect(interactions['Violated Request Count']).toEqual([0, 0, 0, 0, 0, 0]);
    expect(interactions['Filled Slots']).toEqual([true, true, true, true, true]);
    expect(interactions.Aborted).toBe(false);
    expect(interactions['Played Probe Rounds']).toBe(6);
    const s = scoreEpisode(interactions, { nSlots: 5 });
    for (let t = 0; t <= 5; t++) expect(s.turnScores[String(t)]!.Accuracy).toBe(1.0);
    for (let t = 1; t <= 5; t++) expect(s.turnScores[String(t)]!['Slot Filled?']).toBe(1);
    expect(formatScoresJson(s).split('"episode scores": ')[1]).toBe(
      '{"Middle-Accuracy": 1.0, "Accuracy": 1.0, "Kappa": 1.0, "Truncated Kappa": 1.0, "Slot-Filling-Accuracy": 1.0, "Main Score": 100.0, "Aborted": 0, "Lose": 0, "Success": 1, "Request Count": 35, "Parsed Request Count": 35, "Violated Request Count": 0, "Request Success Ratio": 1.0}}',
    );
  });

  const exampleB = policy((call) => {
    if (call.kind === 'request') {
      return {
        to: 'ANSWER: I want to go to Lisbon, leaving from Paris.',
        when: 'ANSWER: In two weeks.',
        by: 'ANSWER: By bus.',
        from: 'ANSWER: Paris.',
        class: 'ANSWER: Economy.',
      }[call.slot]!;
    }
    if (call.round === 0 && call.slot === 'from' && call.attempt === 1) return 'No.';
    if (call.round === 0 && call.slot === 'class' && call.attempt === 1) return 'ASIDE: no\n\nANSWER: ok';
    if (call.round === 2 && call.slot === 'by') return 'ASIDE: Not sure.';
    return requestedBefore(travel0, call) ? 'ASIDE: Yes.' : 'ASIDE: No.';
  });

  it('B — reprompts, anticipation, an unfilled slot', async () => {
    const { interactions } = await playEpisode(travel0, 'travel-booking', canonical, exampleB);
    expect(interactions.realised_slots).toEqual({ to: 0, when: 1, by: 2, from: 0, class: 4 });
    expect(interactions['Request Count']).toEqual([7, 6, 6, 6, 6, 6]);
    expect(interactions['Parsed Request Count']).toEqual([5, 6, 6, 6, 6, 6]);
    expect(interactions['Violated Request Count']).toEqual([2, 0, 0, 0, 0, 0]);
    expect(interactions['Filled Slots']).toEqual([true, true, false, true, true]);
    expect(interactions['Played Probe Rounds']).toBe(6);
    expect(probesTable(interactions)).toEqual([
      [
        [0, 0, 2],
        [0, 0, 1],
        [0, 0, 1],
        [0, 0, 2],
        [0, 0, 1],
      ],
      [
        [1, 0, 1],
        [1, 1, 1],
        [0, 0, 1],
        [0, 0, 1],
        [0, 0, 1],
      ],
      [
        [1, 0, 1],
        [1, 1, 1],
        [0, 0, 1],
        [0, 0, 1],
        [1, 1, 1],
      ],
      [
        [1, 0, 1],
        [1, 1, 1],
        [1, 1, 1],
        [0, 0, 1],
        [1, 1, 1],
      ],
      [
        [1, 1, 1],
        [1, 1, 1],
        [1, 1, 1],
        [0, 0, 1],
        [1, 1, 1],
      ],
      [
        [1, 1, 1],
        [1, 1, 1],
        [1, 1, 1],
        [1, 1, 1],
        [1, 1, 1],
      ],
    ]);
    const s = scoreEpisode(interactions, { nSlots: 5 });
    expect(['0', '1', '2', '3', '4', '5'].map((t) => s.turnScores[t]!.Accuracy)).toEqual([
      1.0, 0.8, 0.8, 0.8, 1.0, 1.0,
    ]);
    expect(['1', '2', '3', '4', '5'].map((t) => s.turnScores[t]!['Slot Filled?'])).toEqual([1, 1, 0, 1, 1]);
    expect(formatScoresJson(s).split('"episode scores": ')[1]).toBe(
      '{"Middle-Accuracy": 0.8, "Accuracy": 0.9, "Kappa": 0.8, "Truncated Kappa": 0.8, "Slot-Filling-Accuracy": 0.8, "Main Score": 80.00000000000001, "Aborted": 0, "Lose": 1, "Success": 0, "Request Count": 37, "Parsed Request Count": 35, "Violated Request Count": 2, "Request Success Ratio": 0.9459459459459459}}',
    );
    const questions = interactions.turns[0]!.filter((e) => e.action.type === 'probe question').map(
      (e) => e.action.content,
    );
    expect(questions.slice(0, 2)).toEqual([
      'ME:  Does the travel agent already know your origin? Answer this question with yes or no and then stop.',
      'ME: Please answer this question carefully. Does the travel agent already know your origin? Answer this question with yes or no and then stop.',
    ]);
    expect(questions[2]).toMatch(/^ME: {2}Does the travel agent already know your destination\? /);
    const meta = interactions.turns[1]!.filter((e) => e.action.type === 'metadata').map((e) => e.action.content);
    expect(meta).toContain('Value for FROM anticipated; ground truth turn updated from 3 to 0.');
  });

  it('C — abort in slot filling (continuation line)', async () => {
    const answerer = policy((call) =>
      call.kind === 'request'
        ? call.round === 3
          ? 'ANSWER: Overnight bus.\nTRAVEL-AGENT: anything else?'
          : `ANSWER: ${travel0.slots[call.slot]}.`
        : requestedBefore(travel0, call)
          ? 'ASIDE: Yes.'
          : 'ASIDE: No.',
    );
    const { interactions, abortReason } = await playEpisode(travel0, 'travel-booking', canonical, answerer);
    expect(abortReason).toBe('invalid format in slot filling');
    expect(interactions['Request Count']).toEqual([5, 6, 6, 1, 0, 0]);
    expect(interactions['Parsed Request Count']).toEqual([5, 6, 6, 0, 0, 0]);
    expect(interactions['Violated Request Count']).toEqual([0, 0, 0, 1, 0, 0]);
    expect(interactions['Filled Slots']).toEqual([true, true]);
    expect(interactions.Aborted).toBe(true);
    expect(interactions['Played Probe Rounds']).toBe(3);
    const s = scoreEpisode(interactions, { nSlots: 5 });
    expect(Object.keys(s.turnScores)).toEqual(['0', '1', '2']);
    for (const t of ['0', '1', '2']) expect(s.turnScores[t]!.Accuracy).toBe(1.0);
    expect(formatScoresJson(s).split('"episode scores": ')[1]).toBe(
      '{"Middle-Accuracy": NaN, "Accuracy": NaN, "Kappa": NaN, "Truncated Kappa": NaN, "Slot-Filling-Accuracy": NaN, "Main Score": NaN, "Aborted": 1, "Lose": 0, "Success": 0, "Request Count": 18, "Parsed Request Count": 17, "Violated Request Count": 1, "Request Success Ratio": 0.9444444444444444}}',
    );
    expect(interactions.turns[3]!.map((e) => e.action.type).slice(-3)).toEqual(['parse', 'invalid format', 'end']);
  });

  it('D — abort in probing round 0', async () => {
    const answerer = policy((call) => (call.kind === 'probe' && call.slot === 'to' ? 'Yes' : 'ASIDE: No.'));
    for (const concurrentProbes of [true, false]) {
      const { interactions } = await playEpisode(travel0, 'travel-booking', canonical, answerer, { concurrentProbes });
      expect(interactions['Request Count']).toEqual([6, 0, 0, 0, 0, 0]);
      expect(interactions['Parsed Request Count']).toEqual([1, 0, 0, 0, 0, 0]);
      expect(interactions['Violated Request Count']).toEqual([5, 0, 0, 0, 0, 0]);
      expect(interactions['Filled Slots']).toEqual([]);
      expect(interactions['Played Probe Rounds']).toBe(0);
      expect(interactions.probes).toHaveLength(1);
      const round = interactions.probes[0]!;
      expect([round[0]!.gt, round[0]!.value, round[0]!.tries]).toEqual([0, 0, 1]);
      expect([round[1]!.gt, round[1]!.value, round[1]!.tries]).toEqual([0, 2, 6]);
      for (const p of round.slice(2)) expect(Object.keys(p)).toEqual(['target', 'question', 'gt']);
      const s = scoreEpisode(interactions, { nSlots: 5 });
      expect(formatScoresJson(s)).toBe(
        '{"turn scores": {}, "episode scores": {"Accuracy": NaN, "Kappa": NaN, "Truncated Kappa": NaN, "Slot-Filling-Accuracy": NaN, "Main Score": NaN, "Aborted": 1, "Lose": 0, "Success": 0, "Request Count": 6, "Parsed Request Count": 1, "Violated Request Count": 5, "Request Success Ratio": 0.16666666666666666}}',
      );
    }
  });
});

describeShared('game master behaviour', () => {
  it('the Answerer sees the prompt, "Ok.", the QA pairs and one probe; probes never enter the history', async () => {
    const seen: Array<{ call: AnswererCall; messages: ChatMessage[] }> = [];
    const perfect = chatModelAnswerer(perfectModel(canonical));
    const spy: Answerer = {
      name: 'spy',
      respond: async (messages, call) => {
        seen.push({ call, messages: structuredClone(messages) });
        return perfect.respond(messages, call);
      },
    };
    await playEpisode(travel0, 'travel-booking', canonical, spy, { concurrentProbes: false });
    const round2probe = seen.find((s) => s.call.kind === 'probe' && s.call.round === 2)!;
    expect(round2probe.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(round2probe.messages[1]!.content).toBe('Ok.');
    expect(round2probe.messages[2]!.content).toBe(firstRequest);
    expect(firstRequest).toBe('TRAVEL-AGENT: What is the destination of your trip?');
    expect(round2probe.messages[6]!.content.startsWith('ME:  ')).toBe(true);
    const request3 = seen.find((s) => s.call.kind === 'request' && s.call.round === 3)!;
    expect(request3.messages).toHaveLength(2 + 2 * 2 + 1);
    expect(request3.messages.some((m) => m.content.startsWith('ME:'))).toBe(false);
    expect(request3.messages.at(-1)!.content).not.toContain('Answer only this question');
  });

  it('concurrent probes give the same transcript as sequential ones, in less wall time', async () => {
    const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const perfect = chatModelAnswerer(perfectModel(canonical));
    const slow: Answerer = { name: 'slow', respond: async (m, c) => (await delay(15), perfect.respond(m, c)) };
    const t0 = performance.now();
    const seq = await playEpisode(travel0, 'travel-booking', canonical, slow, { concurrentProbes: false });
    const t1 = performance.now();
    const con = await playEpisode(travel0, 'travel-booking', canonical, slow, { concurrentProbes: true });
    const t2 = performance.now();
    expect(strip(con.interactions)).toEqual(strip(seq.interactions));
    expect(con.requests.map((r) => r.manipulated_prompt_obj)).toEqual(
      seq.requests.map((r) => r.manipulated_prompt_obj),
    );
    // 35 sequential calls vs 11 sequential round trips: a loose bound (timing is benchmarked in bench/, not here)
    expect(t2 - t1).toBeLessThan(t1 - t0);
  });

  it('a player failure mid-episode is logged, aborts the episode with the reason and does not throw', async () => {
    for (const concurrentProbes of [true, false]) {
      const failing = policy((call) => {
        if (call.kind === 'probe' && call.round === 2 && call.slot === 'by')
          throw new Error('HTTP 503 from the endpoint');
        return call.kind === 'request'
          ? `ANSWER: ${travel0.slots[call.slot]}.`
          : requestedBefore(travel0, call)
            ? 'ASIDE: Yes.'
            : 'ASIDE: No.';
      });
      const { interactions, abortReason } = await playEpisode(travel0, 'travel-booking', canonical, failing, {
        concurrentProbes,
      });
      expect(interactions.Aborted).toBe(true);
      expect(abortReason).toBe('player failure: HTTP 503 from the endpoint');
      expect(interactions['Abort Reason']).toBe(abortReason);
      expect(interactions['Played Probe Rounds']).toBe(2);
      // probes from, to answered; by failed with no answer; later probes keep only target/question/gt
      expect(interactions.probes[2]!.map((p) => Object.keys(p).length)).toEqual([6, 6, 3, 3, 3]);
      expect(interactions['Request Count'][2]).toBe(1 + 2);
      const last = interactions.turns[2]!.map((e) => e.action.type);
      expect(last.slice(-4)).toEqual(['probe question', 'info', 'error', 'end']);
      expect(interactions.turns[2]!.at(-2)!.action.content).toBe('Abort: player failure: HTTP 503 from the endpoint');
      const s = scoreEpisode(interactions, { nSlots: 5 });
      expect(s.episodeScores.Aborted).toBe(1);
      expect(s.episodeScores['Main Score']).toBeNaN();
    }
    const failingRequest = policy((call) => {
      if (call.kind === 'request') throw new Error('budget exhausted');
      return 'ASIDE: No.';
    });
    const r = await playEpisode(travel0, 'travel-booking', canonical, failingRequest);
    expect(r.abortReason).toBe('player failure: budget exhausted');
    expect(r.interactions['Played Probe Rounds']).toBe(1);
    expect(r.interactions['Request Count']).toEqual([5, 0, 0, 0, 0, 0]);
  });

  it('cancelling the episode rejects instead of recording a failure', async () => {
    const controller = new AbortController();
    const answerer = policy((call) => {
      if (call.round === 1) controller.abort(new Error('stop'));
      return call.kind === 'request' ? `ANSWER: ${travel0.slots[call.slot]}.` : 'ASIDE: No.';
    });
    await expect(
      playEpisode(travel0, 'travel-booking', canonical, answerer, { signal: controller.signal }),
    ).rejects.toThrow('stop');
  });

  it('options: coda send/off, single probe space, whole-word yes/no, word-boundary slot matching', async () => {
    const seen: ChatMessage[][] = [];
    const perfect = chatModelAnswerer(perfectModel(canonical));
    const spy: Answerer = { name: 'spy', respond: async (m, c) => (seen.push(m), perfect.respond(m, c)) };
    const run = (o: GameMasterOptions) => playEpisode(travel0, 'travel-booking', canonical, spy, o);
    const sent = await run({ coda: 'send' });
    expect(
      seen
        .at(-1)!
        .some((m) => m.content === `${firstRequest} Answer only this question in one short sentence and then stop.`),
    ).toBe(true);
    expect(sent.interactions.Aborted).toBe(false);
    const off = await run({ coda: 'off', fixProbeSpacing: true });
    const p1 = off.interactions.turns[1]!.filter((e) => e.to === 'Player 1').map((e) => e.action.content);
    expect(p1[0]).toBe(firstRequest);
    expect(p1[1]).toMatch(/^ME: [A-Z]/);
    expect(p1[1]).not.toMatch(/^ME: {2}/);
    expect(parseProbeAnswer('ASIDE: Not sure.', canonical.words, 'prefix')).toBe('no');
    expect(parseProbeAnswer('ASIDE: Not sure.', canonical.words, 'word')).toBe('NA');
    expect(parseProbeAnswer('ASIDE: No, never.', canonical.words, 'word')).toBe('no');
    expect(parseProbeAnswer('ASIDE: Yesterday', canonical.words, 'word')).toBe('NA');
    // "First" (class) inside "Next month, first week" (when): substring anticipates, word-boundary does too ("first" is a word);
    // "Tea" inside "Steak" only with substring matching.
    const inst: GameInstance = {
      ...travel0,
      slots: { ...travel0.slots, class: 'Tea' },
      request_order: ['to', 'when', 'by', 'from', 'class'],
    };
    const steak = policy((call) =>
      call.kind === 'request'
        ? call.slot === 'to'
          ? 'ANSWER: Lisbon, and a steak.'
          : `ANSWER: ${inst.slots[call.slot]}.`
        : 'ASIDE: No.',
    );
    const sub = await playEpisode(inst, 'travel-booking', canonical, steak);
    const word = await playEpisode(inst, 'travel-booking', canonical, steak, { slotMatch: 'word-boundary' });
    expect(sub.interactions.realised_slots.class).toBe(0);
    expect(word.interactions.realised_slots.class).toBe(4);
  });
});

describe('parsing rules (spec §3)', () => {
  it('has_continuation strips only \\n', () => {
    expect(hasContinuation('x\n\n')).toBe(false);
    expect(hasContinuation('x\r\n')).toBe(false);
    expect(hasContinuation('x\n \n')).toBe(true);
    expect(hasContinuation('x\r\n\r\n')).toBe(true);
    expect(hasContinuation('x\n\nASIDE: y')).toBe(true);
  });

  itCanonical('tags are case-sensitive prefixes; yes/no case-insensitive prefixes after removing every ASIDE:', () => {
    const w = canonical.words;
    expect(parseProbeAnswer('Aside: no', w)).toBe('NA');
    expect(parseProbeAnswer(' ASIDE: no', w)).toBe('NA');
    expect(parseProbeAnswer('No.', w)).toBe('NA');
    expect(parseProbeAnswer('ASIDE: NO', w)).toBe('no');
    expect(parseProbeAnswer('ASIDE: yes, because…', w)).toBe('yes');
    expect(parseProbeAnswer('ASIDE: None', w)).toBe('no');
    expect(parseProbeAnswer('ASIDE: Yeah', w)).toBe('NA');
    expect(parseProbeAnswer('ASIDE: ASIDE: yes', w)).toBe('yes');
    expect(parseSlotAnswer('ANSWER:London', w)).toBe('London');
    expect(parseSlotAnswer('ANSWER: Economy\n\nASIDE: x', w)).toBe('NA');
    expect(parseSlotAnswer('Answer: x', w)).toBe('NA');
  });

  itCanonical('probe texts: two spaces on the first try, the reprompt prefixes after', () => {
    const q = 'ME: Q? Answer this question with yes or no and then stop.';
    expect([1, 2, 3, 4, 5].map((t) => probeText(q, t, canonical.words, canonical.reprompts))).toEqual([
      'ME:  Q? Answer this question with yes or no and then stop.',
      'ME: Please answer this question carefully. Q? Answer this question with yes or no and then stop.',
      'ME: Please follow my instructions. Q? Answer this question with yes or no and then stop.',
      'ME: Please be specific now. Q? Answer this question with yes or no and then stop.',
      'ME: Please think about it carefully. Q? Answer this question with yes or no and then stop.',
    ]);
    expect(probeText(q, 1, canonical.words, canonical.reprompts, true)).toBe(q);
  });
});
