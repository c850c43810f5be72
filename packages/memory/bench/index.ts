/**
 * `pnpm bench` for @eval/memory: streaming a HaluMem-Long-sized run artifact in bounded memory, and aggregation speed.
 * The artifact is synthetic (generated here, shaped like HaluMem-Long: ~120 sessions and ~1M tokens per user), so the
 * bench needs nothing outside the repository.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  evaluateMemory,
  buildJudgeInputs,
  computeTimeConsuming,
  readRunArtifact,
  renderJudgePrompt,
  type EvalRecords,
} from '../src/index';

const USERS = Number(process.env.MEMORY_BENCH_USERS ?? 8);
const SESSIONS = 120;
const TURNS = 60; // 30 user/assistant pairs
const TURN_CHARS = 520; // ~130 tokens per turn: 120 × 60 × 130 ≈ 0.94M tokens per user

function sentence(i: number, chars: number): string {
  const words = [
    'memory',
    'system',
    'Lisbon',
    'coffee',
    'marathon',
    'sister',
    'doctor',
    'project',
    'weekend',
    'garden',
  ];
  let s = '';
  for (let k = 0; s.length < chars; k++) s += `${words[(i * 7 + k) % words.length]} `;
  return s.trimEnd();
}

function syntheticUser(u: number): string {
  const sessions = [];
  for (let s = 0; s < SESSIONS; s++) {
    if (s % 10 === 9) {
      sessions.push({ add_dialogue_duration_ms: 1000.25, is_generated_qa_session: true });
      continue;
    }
    const ts = `Jan ${String((s % 28) + 1).padStart(2, '0')}, 2025, 10:00:00`;
    sessions.push({
      memory_points: Array.from({ length: 3 }, (_, i) => ({
        index: i + 1,
        memory_content: `User ${u} fact ${s}.${i}: ${sentence(s + i, 80)}`,
        memory_type: ['Event Memory', 'Persona Memory', 'Relationship Memory'][i],
        memory_source: i === 2 && s % 5 === 0 ? 'interference' : 'system',
        is_update: i === 1 && s % 4 === 0 ? 'True' : 'False',
        original_memories: i === 1 && s % 4 === 0 ? ['an older version'] : [],
        timestamp: ts,
        importance: 0.75,
        ...(i === 1 && s % 4 === 0 ? { memories_from_system: ['m1', 'm2'] } : {}),
      })),
      dialogue: Array.from({ length: TURNS }, (_, t) => ({
        role: t % 2 === 0 ? 'user' : 'assistant',
        content: sentence(u + s + t, TURN_CHARS),
        timestamp: ts,
        dialogue_turn: t >> 1,
      })),
      extracted_memories: Array.from({ length: 4 }, (_, i) => `extracted ${s}.${i}`),
      add_dialogue_duration_ms: 1234.5,
      questions: [
        {
          question: `q${s}?`,
          answer: 'a',
          evidence: [{ memory_content: 'e' }],
          difficulty: 'easy',
          question_type: 'Basic Fact Recall',
          system_response: 'r',
          context: 'c',
          search_duration_ms: 10.5,
        },
      ],
    });
  }
  return JSON.stringify({ uuid: `bench-${u}`, user_name: `User ${u}`, sessions });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'memory-bench-'));
  try {
    const file = join(dir, 'bench_eval_results.jsonl');
    const ws = createWriteStream(file);
    for (let u = 0; u < USERS; u++) {
      if (!ws.write(`${syntheticUser(u)}\n`)) await new Promise<void>((r) => ws.once('drain', () => r()));
    }
    await new Promise<void>((r) => ws.end(r));
    const bytes = (await stat(file)).size;
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    const liveAfterUser: number[] = [];
    let inputs = 0;
    let promptChars = 0;
    const t0 = performance.now();
    for await (const { user } of readRunArtifact(file)) {
      const ji = buildJudgeInputs(user);
      for (const input of [...ji.integrity, ...ji.accuracy, ...ji.update, ...ji.question]) {
        promptChars += renderJudgePrompt(input).length;
        inputs++;
      }
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      if (gc) {
        gc();
        liveAfterUser.push(process.memoryUsage().heapUsed - base);
      }
    }
    const tc = await computeTimeConsuming(file);
    const ms = performance.now() - t0;
    const heapGrowth = peak - base;
    process.stdout.write(
      `streamed ${USERS} HaluMem-Long-sized users (${mb(bytes)}): ${inputs} judge inputs, ${mb(promptChars)} of rendered prompts in ${(ms / 1000).toFixed(2)} s ` +
        `(${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1)} MB/s); time_consuming total ${tc.total_duration_time.toFixed(2)} min\n` +
        `peak heap growth while judging-input building ${mb(heapGrowth)} (one user's line, its parse and its prompts at a time); ` +
        (gc
          ? `live heap after user 1: ${mb(liveAfterUser[0]!)}, after user ${USERS}: ${mb(liveAfterUser[liveAfterUser.length - 1]!)} ` +
            `(ratio ${(liveAfterUser[liveAfterUser.length - 1]! / liveAfterUser[0]!).toFixed(2)}; file ${mb(bytes)})\n`
          : '(run with --expose-gc for the live-heap figures)\n'),
    );

    // aggregation over HaluMem-Medium-sized pooled records (14,948 points, ~15k extracted memories, 3,467 questions), x10
    const n = 10;
    const records: EvalRecords = {
      memory_integrity_records: [],
      memory_accuracy_records: [],
      memory_update_records: [],
      question_answering_records: [],
    };
    const types = ['Event Memory', 'Persona Memory', 'Relationship Memory'];
    for (let i = 0; i < 14_948 * n; i++) {
      const update = i % 8 === 0;
      if (update)
        records.memory_update_records.push({
          memory_type: types[i % 3],
          importance: 0.75,
          memory_update_type: ['Correct', 'Omission', 'Hallucination'][i % 3],
        });
      else
        records.memory_integrity_records.push({
          memory_type: types[i % 3],
          memory_source: i % 11 === 0 ? 'interference' : 'system',
          importance: 0.75,
          memory_integrity_score: i % 3,
        });
    }
    for (let i = 0; i < 15_000 * n; i++)
      records.memory_accuracy_records.push({
        memory_accuracy_score: i % 3,
        is_included_in_golden_memories: i % 4 ? 'true' : 'false',
      });
    for (let i = 0; i < 3_467 * n; i++)
      records.question_answering_records.push({
        question_type: 'Basic Fact Recall',
        result_type: ['Correct', 'Omission', 'Hallucination'][i % 3],
      });
    const total =
      records.memory_integrity_records.length +
      records.memory_accuracy_records.length +
      records.memory_update_records.length +
      records.question_answering_records.length;
    const a0 = performance.now();
    evaluateMemory(records);
    const aggMs = performance.now() - a0;
    process.stdout.write(
      `aggregated ${total} records (10x HaluMem-Medium) in ${aggMs.toFixed(1)} ms (${(((total / aggMs) * 1000) / 1e6).toFixed(2)} M records/s)\n`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
