// Calls, tokens and cost of one full run (the 50 v2.0 instances) measured from the recorded episodes in ../shared
// (not shipped; run from the repository):
//   node --conditions=@eval/source --import tsx packages/scorekeeping/scripts/measure-cost.ts [model]
// The one complete recorded episode (claude-3-5-sonnet, job-interview episode 1: 5 slots, no re-prompt) is replayed
// through the game master; every call's messages and recorded answer are counted with @eval/llm's local tokenizer.
// Its tokens per call, times the calls of the full run from the game structure (episodeCallRange), give the estimate.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRequest, costOf, countPromptTokens, DEFAULT_PRICES, DEFAULT_PRICES_DATE } from '@eval/llm';
import { countTextTokens } from '../../llm/src/tokens';
import { playEpisode } from '../src/game-master';
import { readInstanceFile, readInstancesFile } from '../src/instances';
import { scriptedAnswererFromFile } from '../src/players';
import { loadResourceDir } from '../src/resources';
import { episodeCallRange } from '../src/run';
import type { Answerer } from '../src/types';

const SHARED = fileURLToPath(new URL('../../../../shared/scorekeeping', import.meta.url));
const model = process.argv[2] ?? 'gpt-4o';
const price = DEFAULT_PRICES[model]!;
const dir = join(
  SHARED,
  'episodes',
  'v2.0',
  'claude-3-5-sonnet-20241022-t0.0--claude-3-5-sonnet-20241022-t0.0',
  '1_job-interview',
  'episode_1',
);
const resources = await loadResourceDir(SHARED);
const recorded = await scriptedAnswererFromFile(join(dir, 'interactions.json'));
let calls = 0;
let prompt = 0;
let completion = 0;
const counting: Answerer = {
  name: recorded.name,
  async respond(messages, call) {
    const reply = await recorded.respond(messages, call);
    const text = typeof reply === 'string' ? reply : reply.text;
    calls++;
    prompt += await countPromptTokens(buildRequest(messages, { temperature: 0 }, { model }));
    completion += await countTextTokens(text, model);
    return reply;
  },
};
const result = await playEpisode(
  await readInstanceFile(join(dir, 'instance.json')),
  'job-interview',
  resources,
  counting,
  { modelName: recorded.name, concurrentProbes: false },
);
if (result.interactions.Aborted) throw new Error('the replayed episode aborted');
const all = await readInstancesFile(join(SHARED, 'in', 'instances.json'));
let min = 0;
let max = 0;
for (const e of all.experiments)
  for (const i of e.game_instances) {
    const r = episodeCallRange(i, resources.reprompts.length);
    min += r.min;
    max += r.max;
  }
const perCall = costOf(price, { promptTokens: prompt, completionTokens: completion }) / calls;
console.log(
  `replayed episode: ${calls} calls, ${prompt} prompt + ${completion} completion tokens (${(prompt / calls).toFixed(0)} + ${(completion / calls).toFixed(1)} per call)`,
);
console.log(
  `full run: ${min} calls (at most ${max}); ~$${(perCall * min).toFixed(2)} at ${model} prices (${DEFAULT_PRICES_DATE}), ~$${(perCall * max).toFixed(2)} at most`,
);
