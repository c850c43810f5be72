import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage, ChatModel } from '@eval/core';
import { formatTable } from '../format';
import type { DemoEntry } from './index';

/**
 * A made-up user written for this demo (not HaluMem data): two sessions in HaluMem's dataset format, with a false
 * "interference" claim by the assistant that the user ignores, an update (a move from Porto to Lisbon) and questions.
 */
const T0 = 'Mar 02, 2025, 09:00:00';
const T1 = 'Apr 20, 2025, 18:30:00';
const point = (
  memory_content: string,
  memory_type: string,
  memory_source: string,
  timestamp: string,
  extra: Record<string, unknown> = {},
) => ({
  memory_content,
  memory_type,
  memory_source,
  is_update: 'False',
  original_memories: [] as string[],
  timestamp,
  importance: memory_source === 'interference' ? 1.0 : 0.75,
  ...extra,
});
const turn = (role: 'user' | 'assistant', content: string, timestamp: string, dialogue_turn: number) => ({
  role,
  content,
  timestamp,
  dialogue_turn,
});

export const MEMORY_DEMO_USER = {
  uuid: 'demo-0000-lena-ortiz',
  persona_info: 'Name: Lena Ortiz; Gender: Female; Occupation: nurse',
  sessions: [
    {
      start_time: T0,
      end_time: T0,
      memory_points: [
        point('Lena Ortiz lives in Porto.', 'Persona Memory', 'system', T0),
        point('Lena Ortiz works as a nurse.', 'Persona Memory', 'system', T0),
        point('Lena Ortiz ran a half marathon in Braga.', 'Event Memory', 'secondary', T0),
        point('Lena Ortiz owns a cat.', 'Persona Memory', 'interference', T0),
      ],
      dialogue: [
        turn('user', 'Hi! I am Lena Ortiz. I live in Porto and I work as a nurse.', T0, 0),
        turn('assistant', 'Nice to meet you, Lena. You also told me you own a cat, right?', T0, 0),
        turn('user', 'Last weekend I ran a half marathon in Braga.', T0, 1),
        turn('assistant', 'Congratulations on the half marathon!', T0, 1),
      ],
      questions: [
        {
          question: 'Where does Lena Ortiz live?',
          answer: 'Porto',
          evidence: [{ memory_content: 'Lena Ortiz lives in Porto.', memory_type: 'Persona Memory' }],
          difficulty: 'easy',
          question_type: 'Basic Fact Recall',
        },
      ],
    },
    {
      start_time: T1,
      end_time: T1,
      memory_points: [
        point('Lena Ortiz lives in Lisbon.', 'Persona Memory', 'secondary', T1, {
          is_update: 'True',
          original_memories: ['Lena Ortiz lives in Porto.'],
        }),
        point('Lena Ortiz has a sister named Marta.', 'Relationship Memory', 'system', T1),
      ],
      dialogue: [
        turn('user', 'Big news: I moved and now I live in Lisbon.', T1, 0),
        turn('assistant', 'Exciting! How is the new place?', T1, 0),
        turn('user', 'Great, and my sister Marta lives nearby.', T1, 1),
        turn('assistant', 'Lovely to have your sister Marta close.', T1, 1),
      ],
      questions: [
        {
          question: 'Which city does Lena Ortiz live in now?',
          answer: 'Lisbon',
          evidence: [{ memory_content: 'Lena Ortiz lives in Lisbon.', memory_type: 'Persona Memory' }],
          difficulty: 'medium',
          question_type: 'Dynamic Update',
        },
        {
          question: "What is the name of Lena Ortiz's sister?",
          answer: 'Marta',
          evidence: [{ memory_content: 'Lena Ortiz has a sister named Marta.', memory_type: 'Relationship Memory' }],
          difficulty: 'easy',
          question_type: 'Basic Fact Recall',
        },
        {
          question: "What is Lena Ortiz's blood type?",
          answer: 'Unknown; never mentioned.',
          evidence: [],
          difficulty: 'easy',
          question_type: 'Memory Boundary',
        },
      ],
    },
  ],
};

const STOP = new Set(
  'a an and the is are was in of to on for with i my me you your it at as now does do what which who where how has have'.split(
    ' ',
  ),
);
function words(text: string): string[] {
  return [...text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)]
    .map((m) => m[0])
    .filter((w) => !STOP.has(w) && w.length > 1);
}
/** Share of `a`'s content words found in `b`. */
function coverage(a: string, b: string): number {
  const wa = [...new Set(words(a))];
  if (wa.length === 0) return 0;
  const wb = new Set(words(b));
  return wa.filter((w) => wb.has(w)).length / wa.length;
}
function between(text: string, start: string, end: string): string {
  const i = text.indexOf(start);
  const j = i < 0 ? -1 : text.indexOf(end, i + start.length);
  return i < 0 || j < 0 ? '' : text.slice(i + start.length, j);
}

/**
 * The memory systems' model in this demo: a programmatic ChatModel (no LLM). Extraction turns each user sentence into a
 * memory; answering picks the context line sharing most words with the question ("unknown" when none does).
 */
function demoSystemModel(): ChatModel {
  return {
    id: 'demo-rules',
    async chat(messages: ChatMessage[]) {
      const prompt = messages[messages.length - 1]!.content;
      if (prompt.includes('"memories"')) {
        const name = /about (.+?) for later conversations/.exec(prompt)?.[1] ?? 'The user';
        const memories = [...prompt.matchAll(/\]user: (.*)/g)]
          .flatMap((m) => m[1]!.split(/(?<=[.!?])\s+/))
          .filter((s) => words(s).length >= 3)
          .map((s) => `${name}: ${s}`);
        return { text: `\`\`\`json\n${JSON.stringify({ memories })}\n\`\`\``, finishReason: 'stop' };
      }
      const question = /\nQuestion: (.*)\n/.exec(prompt)?.[1] ?? '';
      const context = between(prompt, 'recorded):\n', '\n\nQuestion:').split('\n');
      let best = '';
      let score = 0;
      for (const line of context) {
        const s = coverage(question, line);
        if (s > score) [best, score] = [line.replace(/^\[[^\]]*\]\s*|^[^:]*\d{2}:\d{2}:\d{2}: /, ''), s];
      }
      return { text: score >= 0.5 ? best : 'Unknown.', finishReason: 'stop' };
    },
  };
}

const fence = (obj: unknown) => `\`\`\`json\n${JSON.stringify(obj, null, 2)}\n\`\`\``;

/**
 * A scripted stand-in for the judge LLM (word overlap, not a model), served on 127.0.0.1 so the judges run exactly as
 * with a real endpoint: @eval/llm client, cache, journal, the reference prompts and JSON extraction.
 */
function demoJudge(prompt: string): string {
  if (prompt.startsWith('You are a strict **"Memory Integrity" evaluator**')) {
    const expected = between(
      prompt,
      'The key memory point that *should* have been extracted.\n   ',
      '\n\n# Evaluation Instructions',
    );
    const memories = between(prompt, 'actually extracted by the memory system.\n   ', '\n\n2. **Expected Memory Point');
    const c = coverage(expected, memories);
    return fence({ reasoning: `word coverage ${c.toFixed(2)}`, score: c >= 0.8 ? '2' : c >= 0.6 ? '1' : '0' });
  }
  if (prompt.startsWith('You are a **Dialogue Memory Accuracy Evaluator.**')) {
    const candidate = between(
      prompt,
      'The memory extracted by the system to be evaluated.\n  ',
      '\n\n# Evaluation Principles',
    );
    const golden = between(
      prompt,
      'pre-annotated for this dialogue in the evaluation dataset.\n  ',
      '\n\n* **Candidate Memory',
    );
    const dialogue = between(prompt, '* **Dialogue:**\n  ', '\n\n* **Golden Memories');
    const support = coverage(candidate, `${dialogue}\n${golden}`);
    return fence({
      accuracy_score: support >= 0.8 ? '2' : support >= 0.4 ? '1' : '0',
      is_included_in_golden_memories: coverage(candidate, golden) >= 0.5 ? 'true' : 'false',
      reason: '词语重合',
    });
  }
  if (prompt.startsWith('Your task is to **evaluate the update accuracy**')) {
    const updated = between(
      prompt,
      'the one we focus on in this evaluation.\n   ',
      '\n\n3. **Original Memory Content:**',
    );
    const memories = between(prompt, 'after the current dialogue.\n   ', '\n\n2. **Target Memory');
    return fence({
      reason: 'word coverage',
      evaluation_result: coverage(updated, memories) >= 0.8 ? 'Correct' : 'Omission',
    });
  }
  const reference = between(prompt, '* **Reference Answer:**\n  ', '\n\n* **Key Memory Points');
  const response = between(prompt, '* **Memory System Response:**\n  ', '\n\n# Output Requirements');
  const unknown = (s: string) => /unknown|not (provided|mentioned)/i.test(s);
  const result = unknown(reference)
    ? unknown(response)
      ? 'Correct'
      : 'Hallucination'
    : coverage(reference, response) >= 0.5
      ? 'Correct'
      : unknown(response)
        ? 'Omission'
        : 'Hallucination';
  return fence({ reasoning: 'word overlap with the reference answer', evaluation_result: result });
}

export const memoryDemo: DemoEntry = {
  name: 'memory',
  title: 'Memory: HaluMem-style judging of two baseline memory systems (made-up user, scripted judge on 127.0.0.1)',
  async run() {
    const memory = await import('@eval/memory');
    const { createLlm } = await import('@eval/llm');
    const { startTestServer } = await import('@eval/llm/testing');
    const dir = await mkdtemp(join(tmpdir(), 'dialeval-memory-demo-'));
    const server = await startTestServer({
      respond: (req) => demoJudge(req.messages[req.messages.length - 1]!.content),
    });
    try {
      const dataset = join(dir, 'dataset.jsonl');
      await writeFile(dataset, `${JSON.stringify(MEMORY_DEMO_USER)}\n`);
      const model = demoSystemModel();
      const systems = [new memory.ExtractRetrieveBaseline({ model }), new memory.FullContextBaseline({ model })];
      const rows = [];
      const data: Record<string, unknown> = {};
      let judgeCalls = 0;
      for (const system of systems) {
        const artifact = join(dir, `${system.name}_eval_results.jsonl`);
        await memory.runMemorySystem({ dataset, system, out: artifact });
        const llm = createLlm({
          model: 'demo-judge',
          baseURL: server.baseURL,
          apiKeyEnv: 'DIALEVAL_DEMO_KEY',
          env: { DIALEVAL_DEMO_KEY: 'demo' },
          cacheDir: join(dir, 'llm-cache'),
          progress: false,
        });
        try {
          const judged = await memory.judgeRunArtifact({ artifact, llm });
          if (!judged.overall) throw new Error(`demo judging of ${system.name} did not complete`);
          judgeCalls += judged.users.reduce((n, u) => n + u.calls, 0);
          rows.push(memory.leaderboardRow(system.name, judged.overall));
          data[system.name] = judged.overall;
        } finally {
          await llm.close();
        }
      }
      const { header, cells } = memory.leaderboardTable(rows);
      const lines = [
        `1 made-up user, 2 sessions, 6 memory points (1 interference, 1 update), 4 questions`,
        `memory systems answered by a programmatic model; ${judgeCalls} judge calls through @eval/llm to a word-overlap stand-in judge`,
        ...formatTable(header, cells).split('\n'),
      ];
      return { lines, data };
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
