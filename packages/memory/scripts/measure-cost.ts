// Calls, tokens and cost of judging the recorded sample in ../shared (not shipped; run from the repository):
//   node --conditions=@eval/source --import tsx packages/memory/scripts/measure-cost.ts [model] [completion tokens per call]
// The sample is the first 12 of the 65 sessions of one HaluMem-Medium user. Every judge prompt is rendered exactly as
// `memory judge` sends it and counted with @eval/llm's local tokenizer. The judges' raw answers are not recorded
// (only the fields parsed out of them), so completion tokens per call are an assumption (default 150: a short JSON
// with a reason), printed as such.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRequest, costOf, countPromptTokens, DEFAULT_PRICES, DEFAULT_PRICES_DATE } from '@eval/llm';
import { buildJudgeInputs, renderJudgePrompt } from '../src/index';
import { judgeJobs } from '../src/internal/judge';

const SHARED = fileURLToPath(new URL('../../../../shared/memory', import.meta.url));
const model = process.argv[2] ?? 'gpt-4o';
const perCall = Number(process.argv[3] ?? 150);
const price = DEFAULT_PRICES[model]!;
const user = JSON.parse(
  readFileSync(join(SHARED, 'sample_run_artifact_martin_mark_sessions0-11.jsonl'), 'utf8').trim(),
);
const jobs = judgeJobs(buildJudgeInputs(user));
let prompt = 0;
for (const j of jobs)
  prompt += await countPromptTokens(
    buildRequest([{ role: 'user', content: renderJudgePrompt(j) }], { temperature: 0 }, { model }),
  );
const completion = jobs.length * perCall;
const cost = costOf(price, { promptTokens: prompt, completionTokens: completion });
console.log(
  `sample (12 sessions of 1 user): ${jobs.length} calls, ${prompt} prompt tokens (measured) + ${completion} completion tokens (assumed ${perCall} per call)`,
);
console.log(
  `cost $${cost.toFixed(2)} at ${model} prices (${DEFAULT_PRICES_DATE}); per session $${(cost / 12).toFixed(3)}; prompts alone $${costOf(price, { promptTokens: prompt, completionTokens: 0 }).toFixed(2)}`,
);
