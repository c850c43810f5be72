/**
 * Scripted HaluMem judging for the CLI tests: fixed verdicts for the four judge prompts (integrity "2", accuracy
 * "2"/"true", update "Correct", QA "Correct"), so expected aggregates follow by hand from the inputs' counts; and a
 * tiny run artifact built from the demo user.
 */
import { writeFileSync } from 'node:fs';
import { MEMORY_DEMO_USER } from '../src/demo/memory';

/** A JSON answer in a fenced block, as the judges are asked to answer. */
export const fence = (obj: unknown) => `\`\`\`json\n${JSON.stringify(obj)}\n\`\`\``;

/** Which HaluMem judge a prompt is for (anything not integrity, accuracy or update is taken as QA). */
export function judgeKind(prompt: string): 'integrity' | 'accuracy' | 'update' | 'qa' {
  if (prompt.startsWith('You are a strict **"Memory Integrity" evaluator**')) return 'integrity';
  if (prompt.startsWith('You are a **Dialogue Memory Accuracy Evaluator.**')) return 'accuracy';
  if (prompt.startsWith('Your task is to **evaluate the update accuracy**')) return 'update';
  return 'qa';
}

/** The fixed verdict for a HaluMem judge prompt. */
export function scriptedVerdict(prompt: string): string {
  switch (judgeKind(prompt)) {
    case 'integrity':
      return fence({ reasoning: 'scripted', score: '2' });
    case 'accuracy':
      return fence({ accuracy_score: '2', is_included_in_golden_memories: 'true', reason: 'scripted' });
    case 'update':
      return fence({ reason: 'scripted', evaluation_result: 'Correct' });
    default:
      return fence({ reasoning: 'scripted', evaluation_result: 'Correct' });
  }
}

/**
 * Writes a tiny run artifact (HaluMem's `*_eval_results.jsonl` layout) to `file`: the demo user with one extracted
 * memory per session and a reply to every question (12 judgements).
 */
export function writeTinyMemoryArtifact(file: string): string {
  const tiny = {
    uuid: MEMORY_DEMO_USER.uuid,
    user_name: 'Lena Ortiz',
    sessions: MEMORY_DEMO_USER.sessions.map((s) => ({
      memory_points: s.memory_points,
      dialogue: s.dialogue,
      extracted_memories: ['Lena Ortiz lives in Porto.'],
      questions: s.questions.map((q) => ({ ...q, system_response: 'Porto' })),
    })),
  };
  writeFileSync(file, `${JSON.stringify(tiny)}\n`);
  return file;
}
