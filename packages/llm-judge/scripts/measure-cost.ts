// Calls, tokens and cost of one full run of each judging method on the reference's 732 sampled turns, measured from
// the recorded data in ../shared (not shipped; run from the repository):
//   node --conditions=@eval/source --import tsx packages/llm-judge/scripts/measure-cost.ts [model]
// Prompt tokens: every prompt of the full run rendered from original_sampled.json with the reference templates and
// counted with @eval/llm's local tokenizer (system message included). Completion tokens: the recorded answers of the
// 42-turn slice (the reference's own gpt-4 outputs), tokenized, their mean per call times the run's calls.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRequest, countPromptTokens, costOf, DEFAULT_PRICES, DEFAULT_PRICES_DATE } from '@eval/llm';
import { countTextTokens } from '../../llm/src/tokens';
import { JUDGE_METHODS, METHODS, loadTemplates, methodRoles, readOutputEntries, readTurnRecords } from '../src/index';
import { judgeMessages, REFERENCE_SYSTEM_MESSAGE, renderPrompt } from '../src/internal/render';

const SHARED = fileURLToPath(new URL('../../../../shared/llm-judge', import.meta.url));
const model = process.argv[2] ?? 'gpt-4o';
const price = DEFAULT_PRICES[model];
if (!price) throw new Error(`no price for ${model}`);
const records = await readTurnRecords(join(SHARED, 'predictions', 'original_sampled.json.gz'));
const slice: Record<string, string[]> = {
  ours: ['ours_acc_outputs.json', 'ours_comp_outputs.json'],
  direct: ['direct_outputs.json'],
  cot: ['cot_outputs.json'],
};

async function meanCompletion(files: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const f of files) {
    const entries = (await readOutputEntries(join(SHARED, 'slice', f))).filter((e) => e.prompt);
    let sum = 0;
    for (const e of entries) sum += await countTextTokens(e.output, model);
    out.push(sum / entries.length);
  }
  return out;
}

for (const method of JUDGE_METHODS) {
  if (!slice[method]) continue;
  const info = METHODS[method];
  const templates = await loadTemplates(methodRoles(method), { dir: join(SHARED, 'templates') });
  const stages = info.kind === 'two-step' ? [info.accuracy, info.completeness] : [info.prompt];
  const means = await meanCompletion(slice[method]!);
  let calls = 0;
  let prompt = 0;
  let completion = 0;
  for (const [s, role] of stages.entries()) {
    for (const r of records) {
      if (info.kind === 'two-step' && s === 0 && r.predictTurnLabel.size === 0) continue; // the reference skips it
      const req = buildRequest(
        judgeMessages(renderPrompt(templates[role]!, r), REFERENCE_SYSTEM_MESSAGE),
        { temperature: 0 },
        { model },
      );
      prompt += await countPromptTokens(req);
      completion += means[s]!;
      calls++;
    }
  }
  const cost = costOf(price, { promptTokens: prompt, completionTokens: Math.round(completion) });
  console.log(
    `${method}: ${calls} calls, ${prompt} prompt + ${Math.round(completion)} completion tokens, $${cost.toFixed(2)} at ${model} prices (${DEFAULT_PRICES_DATE}); Batch API $${(cost / 2).toFixed(2)}`,
  );
}
