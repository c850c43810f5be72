import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatMetricValue } from '../format';
import type { DemoEntry } from './index';

/**
 * Two made-up MultiWOZ-style dialogues written for this demo (not MultiWOZ data), with a tracker's predictions:
 * - DEMO01 turn 1 misses the hotel the user accepted, turn 2 misses the train day (incomplete);
 * - DEMO02 turn 0 writes "center" where the annotation says "centre": exact match calls it wrong, a judge need not.
 */
interface DemoTurn {
  system: string;
  user: string;
  gold: Record<string, string>;
  label: Record<string, string>;
}

const DIALOGUES: Array<{ id: string; turns: DemoTurn[] }> = [
  {
    id: 'DEMO01.json',
    turns: [
      {
        system: '',
        user: 'i need a cheap hotel in the north .',
        gold: { 'hotel-pricerange': 'cheap', 'hotel-area': 'north' },
        label: { 'hotel-pricerange': 'cheap', 'hotel-area': 'north' },
      },
      {
        system: 'the acorn guest house is cheap and in the north . shall i book it ?',
        user: 'yes please , for 2 people from friday , 3 nights .',
        gold: {
          'hotel-name': 'acorn guest house',
          'hotel-book people': '2',
          'hotel-book day': 'friday',
          'hotel-book stay': '3',
        },
        label: { 'hotel-book people': '2', 'hotel-book day': 'friday', 'hotel-book stay': '3' },
      },
      {
        system: 'booked ! anything else ?',
        user: 'i also need a train to london kings cross on friday .',
        gold: { 'train-destination': 'london kings cross', 'train-day': 'friday' },
        label: { 'train-destination': 'london kings cross' },
      },
    ],
  },
  {
    id: 'DEMO02.json',
    turns: [
      {
        system: '',
        user: 'find me an italian restaurant in the centre .',
        gold: { 'restaurant-food': 'italian', 'restaurant-area': 'centre' },
        label: { 'restaurant-food': 'italian', 'restaurant-area': 'center' },
      },
      { system: 'zizzi is a nice italian place in the centre .', user: 'thanks , that is all .', gold: {}, label: {} },
    ],
  },
];

/** What the stand-in judge answers, by user utterance: slots it finds wrong / missing (written for the demo). */
const VERDICTS: Record<string, { incorrect?: Record<string, string>; missed?: Record<string, string> }> = {
  'yes please , for 2 people from friday , 3 nights .': { missed: { 'hotel-name': 'acorn guest house' } },
  'i also need a train to london kings cross on friday .': { missed: { 'train-day': 'friday' } },
};

/** Demo templates written for this project (the paper's templates are not shipped: `dialeval resources fetch llm-dst-eval`). */
const DEMO_TEMPLATES = {
  accuracy:
    '[dialeval demo template written for this project; not the prompt of Gu & Yang (2024)]\n' +
    'Conversation so far: {history}\nAgent: {system}\nUser: {user}\nSlot-values tracked in this turn: {turn_label}\n' +
    'QUESTION accuracy: which tracked slot-values are wrong? Reply with a ```json block {{"incorrect_domain_slot": {{"domain-slot": "value"}}}}.',
  completeness:
    '[dialeval demo template written for this project; not the prompt of Gu & Yang (2024)]\n' +
    'Conversation so far: {history}\nAgent: {system}\nUser: {user}\nSlot-values tracked in this turn: {turn_label}\n' +
    'QUESTION completeness: which slot-values of this turn are missing? Reply with a ```json block {{"missed_domain_slot": {{"domain-slot": "value"}}}}.',
};

function standInJudge(prompt: string): string {
  const user = /\nUser: (.*)\n/.exec(prompt)?.[1] ?? '';
  const verdict = VERDICTS[user] ?? {};
  const body = prompt.includes('QUESTION accuracy')
    ? { incorrect_domain_slot: verdict.incorrect ?? {} }
    : { missed_domain_slot: verdict.missed ?? {} };
  return `Looking at the user's words.\n\`\`\`json\n${JSON.stringify(body)}\n\`\`\``;
}

/** llm-judge's figures are percent points: shown with one decimal (and a `%` sign). */
const POINTS = { unit: '%', digits: 1 } as const;

export const llmJudgeDemo: DemoEntry = {
  name: 'llm-judge',
  title:
    'LLM judge of dialogue state tracking: rule judgements and a two-dimensional judge run (made-up dialogues, stand-in judge on 127.0.0.1)',
  async run() {
    const judge = await import('@eval/llm-judge');
    const { createLlm } = await import('@eval/llm');
    const { startTestServer } = await import('@eval/llm/testing');
    const records = DIALOGUES.flatMap((d) => {
      let state: Record<string, string> = {};
      let gold: Record<string, string> = {};
      const history: string[] = [];
      return d.turns.map((t, i) => {
        state = { ...state, ...t.label };
        gold = { ...gold, ...t.gold };
        const r = judge.recordFromJson({
          flag: `${d.id}-${i}`,
          predict_turn_label: t.label,
          predict: state,
          ground_truth: gold,
          ground_truth_m24: gold,
          system: t.system,
          user: t.user,
          history: [...history],
        });
        history.push(t.system, t.user);
        return r;
      });
    });
    const rules = judge.ruleMetrics(records);
    const dir = await mkdtemp(join(tmpdir(), 'dialeval-llm-judge-demo-'));
    const server = await startTestServer({
      respond: (req) => standInJudge(req.messages[req.messages.length - 1]!.content),
    });
    try {
      const templates = await judge.loadTemplates(['ours-accuracy', 'ours-completeness'], {
        texts: { 'ours-accuracy': DEMO_TEMPLATES.accuracy, 'ours-completeness': DEMO_TEMPLATES.completeness },
      });
      const llm = createLlm({
        model: 'demo-judge',
        baseURL: server.baseURL,
        apiKeyEnv: 'DIALEVAL_DEMO_KEY',
        env: { DIALEVAL_DEMO_KEY: 'demo' },
        cacheDir: join(dir, 'llm-cache'),
        progress: false,
      });
      let run;
      try {
        run = await judge.runJudge({ method: 'ours', records, templates, llm });
      } finally {
        await llm.close();
      }
      const e = run.evaluation!;
      const lines = [
        `${records.length} turns of 2 made-up dialogues; rule judgements against the annotations, and method "ours" with demo templates`,
        `(${run.llm.calls} judge calls through @eval/llm to a stand-in judge; the paper's prompts: \`dialeval resources fetch llm-dst-eval\`)`,
        `RULE-M21 TSA ${formatMetricValue(rules.tsa['two-step'].mwz21, POINTS)}%, rule JGA ${formatMetricValue(rules.ruleJga.mwz21, POINTS)}%`,
        `LLM judge TSA ${formatMetricValue(e.metrics.tsaGpt, POINTS)}%, GPT-JGA ${formatMetricValue(e.metrics.gptJga, POINTS)}%, coherence with the rule ${formatMetricValue(e.metrics.coherenceMwz21, POINTS)}%`,
        ...e.turns.map(
          (t) =>
            `  ${t.flag.padEnd(14)} judge ${t.judge} rule ${t.ruleMwz21}${t.missed.length ? `  missed: ${t.missed.join(', ')}` : ''}${t.incorrect.length ? `  incorrect: ${t.incorrect.join(', ')}` : ''}`,
        ),
      ];
      return {
        lines,
        data: {
          rules,
          ours: e.metrics,
          turns: e.turns.map((t) => ({ flag: t.flag, judge: t.judge, rule: t.ruleMwz21, missed: t.missed })),
        },
      };
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
