/**
 * A scripted judge for tests: answers each judge prompt with the judgement GPT-4o gave in the recorded third-party run
 * (the records of ../shared/memory/aggregate_fixture_*.json), found by the memory content / question in the prompt.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalRecords } from '../schema';
import { SHARED_MEMORY } from './shared';

export type JudgeName = 'integrity' | 'accuracy' | 'update' | 'question';

export function fixtureRecords(name = 'aggregate_fixture_sessions0-11.json'): {
  records: EvalRecords;
  expected: Record<string, unknown>;
} {
  const f = JSON.parse(readFileSync(join(SHARED_MEMORY, name), 'utf8'));
  return { records: f.records, expected: f.expected_overall_score };
}

function between(text: string, start: string, end: string): string | undefined {
  const i = text.indexOf(start);
  if (i < 0) return undefined;
  const j = text.indexOf(end, i + start.length);
  return j < 0 ? undefined : text.slice(i + start.length, j);
}

/** Which judge a prompt is for, and its key (memory content or question). */
export function parseJudgePrompt(prompt: string): { judge: JudgeName; key: string } | undefined {
  if (prompt.startsWith('You are a strict **"Memory Integrity" evaluator**')) {
    const key = between(
      prompt,
      'The key memory point that *should* have been extracted.\n   ',
      '\n\n# Evaluation Instructions',
    );
    return key === undefined ? undefined : { judge: 'integrity', key };
  }
  if (prompt.startsWith('You are a **Dialogue Memory Accuracy Evaluator.**')) {
    const key = between(
      prompt,
      'The memory extracted by the system to be evaluated.\n  ',
      '\n\n# Evaluation Principles',
    );
    return key === undefined ? undefined : { judge: 'accuracy', key };
  }
  if (prompt.startsWith('Your task is to **evaluate the update accuracy**')) {
    const key = between(prompt, 'the one we focus on in this evaluation.\n   ', '\n\n3. **Original Memory Content:**');
    return key === undefined ? undefined : { judge: 'update', key };
  }
  const key = between(prompt, '* **Question:**\n  ', '\n\n* **Reference Answer:**');
  return key === undefined ? undefined : { judge: 'question', key };
}

const fence = (obj: unknown) => `Here is my evaluation.\n\n\`\`\`json\n${JSON.stringify(obj, null, 2)}\n\`\`\`\n`;

/** The recorded judge answer for a prompt, as a fenced JSON reply the way GPT-4o writes it (string scores). */
export function recordedAnswers(records: EvalRecords): (prompt: string) => string | undefined {
  const map = new Map<string, string>();
  for (const r of records.memory_integrity_records) {
    map.set(
      `integrity\0${r.memory_content}`,
      fence({ reasoning: 'recorded', score: String(r.memory_integrity_score) }),
    );
  }
  for (const r of records.memory_accuracy_records) {
    if (r.memory_accuracy_score === null) continue;
    map.set(
      `accuracy\0${r.memory_content}`,
      fence({
        accuracy_score: String(r.memory_accuracy_score),
        is_included_in_golden_memories: r.is_included_in_golden_memories,
        reason: '记录',
      }),
    );
  }
  for (const r of records.memory_update_records)
    map.set(`update\0${r.memory_content}`, fence({ reason: 'recorded', evaluation_result: r.memory_update_type }));
  for (const r of records.question_answering_records) {
    map.set(
      `question\0${(r as { question: string }).question}`,
      fence({ reasoning: 'recorded', evaluation_result: r.result_type }),
    );
  }
  return (prompt) => {
    const p = parseJudgePrompt(prompt);
    return p ? map.get(`${p.judge}\0${p.key}`) : undefined;
  };
}
