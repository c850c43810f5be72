/**
 * The memory-system interface and the runner that drives any implementation through a HaluMem dataset and writes the
 * run artifact (HaluMem's `<frame>_eval_results.jsonl`), one user per line, resumably.
 */
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { EvalError, writeFileAtomic, type ReadOptions } from '@eval/core';
import { readDataset } from './files';
import { routesToUpdate } from './inputs';
import { pyTruthy } from '@eval/core/python';
import { personaName, type DatasetSession, type DatasetTurn, type DatasetUser } from './schema';

export interface MemoryUser {
  uuid: string;
  /** The persona name (HaluMem adapters use it as the memory system's user id). */
  name: string;
  personaInfo: string;
}

export interface SessionInput {
  user: MemoryUser;
  /** Enumerate index of the session in the user's list (distractor sessions included). */
  index: number;
  startTime?: string;
  endTime?: string;
  dialogue: ReadonlyArray<DatasetTurn>;
  /** HaluMem-Long distractor session (unrelated QA dialogue): added to the system, never judged. */
  isGeneratedQaSession: boolean;
}

export interface AddSessionResult {
  /** The memories the system extracted from this session (judged for integrity and accuracy). */
  extractedMemories: string[];
}

export interface RetrieveRequest {
  user: MemoryUser;
  query: string;
  topK: number;
  /** `update`: the query is an updated memory point; `question`: a question to answer. */
  purpose: 'update' | 'question';
}

export interface Retrieval {
  /** Retrieved memories, best first. For update points these become `memories_from_system`. */
  memories: string[];
  /** The context string the answer is produced from (recorded as the question's `context`); default: memories joined. */
  context?: string;
}

export interface AnswerRequest {
  user: MemoryUser;
  question: string;
  retrieval: Retrieval;
}

/**
 * A memory system under test. Implement these methods (plus the optional lifecycle hooks) to run it through HaluMem
 * with {@link runMemorySystem}: sessions are added in order, update points and questions are asked right after the
 * session they belong to.
 */
export interface MemorySystem {
  readonly name: string;
  /** Called before a user's first session (e.g. to create or reset the user's memory). */
  startUser?(user: MemoryUser): Promise<void>;
  addSession(session: SessionInput): Promise<AddSessionResult>;
  retrieve(request: RetrieveRequest): Promise<Retrieval>;
  answer(request: AnswerRequest): Promise<string>;
  /** Called after a user's last session. */
  endUser?(user: MemoryUser): Promise<void>;
  close?(): Promise<void>;
}

export interface RunMemorySystemOptions {
  /** HaluMem dataset JSONL (one user per line), streamed. */
  dataset: string;
  system: MemorySystem;
  /** The run artifact to write (JSONL). While running, finished users go to `<out>.partial` (resume). */
  out: string;
  /** Search results kept for each update point (HaluMem adapters: 10). */
  topKUpdate?: number;
  /** Memories retrieved per question (HaluMem's Mem0 adapter: 20). */
  topKQuestion?: number;
  /** Run at most this many users. */
  maxUsers?: number;
  /** Discard an interrupted run's `<out>.partial` and start over (default: resume it). */
  fresh?: boolean;
  signal?: AbortSignal;
  /** How the dataset is read (e.g. `allowInvalidUtf8`: replace invalid UTF-8 instead of failing). */
  read?: ReadOptions;
  onUser?: (event: {
    index: number;
    uuid: string;
    name: string;
    status: 'done' | 'resumed';
    sessions: number;
    questions: number;
  }) => void;
  /** Called after each session of a user being run. */
  onSession?: (event: { uuid: string; index: number; total: number }) => void;
}

export interface RunMemorySystemResult {
  out: string;
  /** Users run now. */
  users: number;
  /** Users taken from a previous, interrupted run. */
  resumed: number;
  sessions: number;
  questions: number;
  updatePoints: number;
  /** Milliseconds spent in addSession / retrieve for questions / answer, this run. */
  addMs: number;
  searchMs: number;
  answerMs: number;
}

function ms(start: number): number {
  return Math.round((performance.now() - start) * 100) / 100;
}

/** Reads the users already finished in `<out>.partial`, dropping a torn last line. */
async function resumePartial(partial: string): Promise<Set<string>> {
  const done = new Set<string>();
  if (!existsSync(partial)) return done;
  const text = await readFile(partial, 'utf8');
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as { uuid?: unknown };
      if (typeof value.uuid !== 'string') continue;
      done.add(value.uuid);
      kept.push(line);
    } catch {
      // a line torn by a crash: that user is run again
    }
  }
  const clean = kept.length ? `${kept.join('\n')}\n` : '';
  if (clean !== text) await writeFileAtomic(partial, clean);
  return done;
}

function memoryUser(user: DatasetUser): MemoryUser {
  return { uuid: user.uuid, name: personaName(user.persona_info) ?? user.uuid, personaInfo: user.persona_info };
}

/**
 * Runs one call of the system and, when it fails, names the item in the error's message (user, session, question or
 * memory point), keeping the error itself (its class, code and status) so callers still recognise it.
 */
async function naming<T>(where: () => string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Error && !(error as { itemNamed?: boolean }).itemNamed) {
      error.message = `${where()}: ${error.message}`;
      (error as { itemNamed?: boolean }).itemNamed = true;
    }
    throw error;
  }
}

async function runSession(
  system: MemorySystem,
  mu: MemoryUser,
  session: DatasetSession,
  index: number,
  options: Required<Pick<RunMemorySystemOptions, 'topKUpdate' | 'topKQuestion'>>,
  stats: RunMemorySystemResult,
): Promise<Record<string, unknown>> {
  const generated = pyTruthy(session.is_generated_qa_session);
  const started = performance.now();
  const user = `user ${mu.name} (${mu.uuid}), session ${index}`;
  const added = await naming(
    () => `${user} (addSession)`,
    () =>
      system.addSession({
        user: mu,
        index,
        startTime: session.start_time ?? undefined,
        endTime: session.end_time ?? undefined,
        dialogue: session.dialogue,
        isGeneratedQaSession: generated,
      }),
  );
  const addMs = ms(started);
  stats.addMs += addMs;
  stats.sessions++;
  if (generated) return { add_dialogue_duration_ms: addMs, is_generated_qa_session: true };
  if (!added || !Array.isArray(added.extractedMemories) || added.extractedMemories.some((m) => typeof m !== 'string')) {
    throw new EvalError(
      'system_error',
      `${system.name}: addSession must return { extractedMemories: string[] } (user ${mu.uuid}, session ${index})`,
    );
  }
  const memoryPoints: Array<Record<string, unknown>> = [];
  for (const [p, point] of session.memory_points.entries()) {
    const copy: Record<string, unknown> = structuredClone(point);
    if (routesToUpdate(point, 'corrected')) {
      const r = await naming(
        () => `${user}, memory point ${p} (retrieve for update)`,
        () => system.retrieve({ user: mu, query: point.memory_content, topK: options.topKUpdate, purpose: 'update' }),
      );
      copy.memories_from_system = r.memories.slice(0, options.topKUpdate);
      stats.updatePoints++;
    }
    memoryPoints.push(copy);
  }
  const out: Record<string, unknown> = {
    memory_points: memoryPoints,
    dialogue: session.dialogue,
    extracted_memories: added.extractedMemories,
    add_dialogue_duration_ms: addMs,
  };
  if (session.questions !== undefined) {
    const questions: Array<Record<string, unknown>> = [];
    for (const [j, q] of session.questions.entries()) {
      const where = `${user}, question ${j} ${JSON.stringify(q.question.length > 60 ? `${q.question.slice(0, 57)}...` : q.question)}`;
      let t = performance.now();
      const retrieval = await naming(
        () => `${where} (retrieve)`,
        () => system.retrieve({ user: mu, query: q.question, topK: options.topKQuestion, purpose: 'question' }),
      );
      const searchMs = ms(t);
      t = performance.now();
      const answer = await naming(
        () => `${where} (answer)`,
        () => system.answer({ user: mu, question: q.question, retrieval }),
      );
      const answerMs = ms(t);
      stats.searchMs += searchMs;
      stats.answerMs += answerMs;
      stats.questions++;
      questions.push({
        ...structuredClone(q),
        context: retrieval.context ?? retrieval.memories.join('\n'),
        search_duration_ms: searchMs,
        system_response: answer,
        response_duration_ms: answerMs,
      });
    }
    out.questions = questions;
  }
  return out;
}

/**
 * Drives `system` through the dataset and writes the run artifact. Users are run in dataset order; each finished user
 * is appended (fsync'd) to `<out>.partial`, so an interrupted run resumes with the next user (a user is re-run from
 * its first session: in-process systems hold their state in memory; LLM calls made through `@eval/llm` come back from
 * its cache). When all users are done, `<out>.partial` is renamed to `out`.
 */
export async function runMemorySystem(options: RunMemorySystemOptions): Promise<RunMemorySystemResult> {
  const out = resolve(options.out);
  const partial = `${out}.partial`;
  const settings = { topKUpdate: options.topKUpdate ?? 10, topKQuestion: options.topKQuestion ?? 20 };
  const stats: RunMemorySystemResult = {
    out,
    users: 0,
    resumed: 0,
    sessions: 0,
    questions: 0,
    updatePoints: 0,
    addMs: 0,
    searchMs: 0,
    answerMs: 0,
  };
  await mkdir(dirname(out), { recursive: true });
  if (options.fresh) await discardPartialRun(out);
  const done = await resumePartial(partial);
  const fh = await open(partial, 'a');
  const { system } = options;
  let index = 0;
  try {
    for await (const { user } of readDataset(options.dataset, options.read)) {
      if (options.maxUsers !== undefined && index >= options.maxUsers) break;
      index++;
      const mu = memoryUser(user);
      if (done.has(user.uuid)) {
        stats.resumed++;
        options.onUser?.({
          index,
          uuid: user.uuid,
          name: mu.name,
          status: 'resumed',
          sessions: user.sessions.length,
          questions: 0,
        });
        continue;
      }
      if (options.signal?.aborted) throw new EvalError('aborted', 'the run was aborted; run again to resume');
      const questionsBefore = stats.questions;
      await system.startUser?.(mu);
      const sessions: Array<Record<string, unknown>> = [];
      for (let s = 0; s < user.sessions.length; s++) {
        if (options.signal?.aborted) throw new EvalError('aborted', 'the run was aborted; run again to resume');
        sessions.push(await runSession(system, mu, user.sessions[s]!, s, settings, stats));
        options.onSession?.({ uuid: user.uuid, index: s, total: user.sessions.length });
      }
      await system.endUser?.(mu);
      await fh.write(`${JSON.stringify({ uuid: user.uuid, user_name: mu.name, sessions })}\n`);
      await fh.sync();
      stats.users++;
      options.onUser?.({
        index,
        uuid: user.uuid,
        name: mu.name,
        status: 'done',
        sessions: user.sessions.length,
        questions: stats.questions - questionsBefore,
      });
    }
  } finally {
    await fh.close();
  }
  await rename(partial, out);
  return stats;
}

/** Removes an interrupted run's `<out>.partial` (start over instead of resuming). */
export async function discardPartialRun(out: string): Promise<void> {
  await rm(`${resolve(out)}.partial`, { force: true });
}
