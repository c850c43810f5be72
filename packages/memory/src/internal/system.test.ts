import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage, ChatModel } from '@eval/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExtractRetrieveBaseline, FullContextBaseline, LexicalIndex, tokenize } from './baselines/index';
import { readRunArtifact } from './files';
import { buildJudgeInputs, judgeInputCounts } from './inputs';
import { personaName } from './schema';
import { runMemorySystem, type MemorySystem, type SessionInput } from './system';

const T = 'Jan 05, 2025, 10:00:00';
const turn = (role: string, content: string) => ({ role, content, timestamp: T, dialogue_turn: 0 });
const mp = (memory_content: string, extra: Record<string, unknown> = {}) => ({
  index: 1,
  memory_content,
  memory_type: 'Persona Memory',
  memory_source: 'system',
  is_update: 'False',
  original_memories: [],
  timestamp: T,
  importance: 0.75,
  ...extra,
});

function user(uuid: string, name: string) {
  return {
    uuid,
    persona_info: `Name: ${name}; Gender: Female; Age: 30`,
    sessions: [
      {
        start_time: T,
        end_time: T,
        memory_points: [mp(`${name} likes green tea.`)],
        dialogue: [turn('user', 'I like green tea.'), turn('assistant', 'Noted.')],
        questions: [
          {
            question: `What does ${name} like to drink?`,
            answer: 'Green tea',
            evidence: [{ memory_content: `${name} likes green tea.` }],
            difficulty: 'easy',
            question_type: 'Basic Fact Recall',
          },
        ],
      },
      {
        title: 'Pure_QA_Session',
        is_generated_qa_session: true,
        memory_points: [],
        questions: [],
        dialogue: [turn('user', 'What is 2+2?'), turn('assistant', '4')],
      },
      {
        start_time: T,
        end_time: T,
        memory_points: [
          mp(`${name} likes black coffee.`, { is_update: 'True', original_memories: [`${name} likes green tea.`] }),
        ],
        dialogue: [turn('user', 'Now I prefer black coffee.'), turn('assistant', 'Got it.')],
      },
    ],
  };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memory-system-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A programmatic memory system: remembers user turns verbatim, answers with the newest memory. */
function recorder(): MemorySystem & { added: SessionInput[] } {
  let memories: string[] = [];
  const added: SessionInput[] = [];
  return {
    name: 'recorder',
    added,
    async startUser() {
      memories = [];
    },
    async addSession(s) {
      added.push(s);
      const m = s.dialogue.filter((t) => t.role === 'user').map((t) => t.content);
      memories.push(...m);
      return { extractedMemories: m };
    },
    async retrieve(r) {
      return { memories: [...memories].reverse().slice(0, r.topK) };
    },
    async answer(r) {
      return r.retrieval.memories[0] ?? 'unknown';
    },
  };
}

describe('runMemorySystem', () => {
  it('writes a run artifact the judges can read: update searches, questions, distractor sessions', async () => {
    const dataset = join(dir, 'data.jsonl');
    writeFileSync(dataset, `${JSON.stringify(user('u1', 'Ana Lima'))}\n${JSON.stringify(user('u2', 'Bo Chen'))}\n`);
    const system = recorder();
    const out = join(dir, 'out', 'rec_eval_results.jsonl');
    const r = await runMemorySystem({ dataset, system, out, topKUpdate: 1 });
    expect(r).toMatchObject({ users: 2, resumed: 0, sessions: 6, questions: 2, updatePoints: 2 });
    // the distractor session is added to the system (dialogue included) but recorded as a stub
    expect(system.added.filter((s) => s.isGeneratedQaSession)).toHaveLength(2);
    const users = [];
    for await (const { user: u } of readRunArtifact(out)) users.push(u);
    expect(users.map((u) => u.user_name)).toEqual(['Ana Lima', 'Bo Chen']);
    const s = users[0]!.sessions;
    expect(Object.keys(s[1]!)).toEqual(['add_dialogue_duration_ms', 'is_generated_qa_session']);
    const s2 = s[2] as { memory_points: Array<{ memories_from_system: string[] }> };
    expect(s2.memory_points[0]!.memories_from_system).toEqual(['Now I prefer black coffee.']);
    const q = (s[0] as { questions: Array<Record<string, unknown>> }).questions[0]!;
    expect(q.system_response).toBe('I like green tea.');
    expect(q.context).toBe('I like green tea.');
    expect(typeof q.search_duration_ms).toBe('number');
    // judge inputs: session 1 skipped (index kept), the update point has search results
    const inputs = buildJudgeInputs(users[0]!);
    expect(judgeInputCounts(inputs)).toMatchObject({
      integrity_inputs: 1,
      update_inputs: 1,
      accuracy_inputs: 2,
      qa_inputs: 1,
    });
    expect(inputs.update[0]!.record.ssession_id).toBe(2);
  });

  it('resumes after the last finished user; a torn line is dropped and that user run again', async () => {
    const dataset = join(dir, 'data.jsonl');
    writeFileSync(dataset, `${JSON.stringify(user('u1', 'Ana Lima'))}\n${JSON.stringify(user('u2', 'Bo Chen'))}\n`);
    const out = join(dir, 'rec_eval_results.jsonl');
    await runMemorySystem({ dataset, system: recorder(), out, maxUsers: 1 });
    // simulate a crash while writing u2: the first run's file is back to .partial with a torn second line
    const first = readFileSync(out, 'utf8');
    writeFileSync(`${out}.partial`, `${first}{"uuid": "u2", "user_na`);
    rmSync(out);
    const system = recorder();
    const r = await runMemorySystem({ dataset, system, out });
    expect(r).toMatchObject({ users: 1, resumed: 1 });
    expect(new Set(system.added.map((s) => s.user.uuid))).toEqual(new Set(['u2']));
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).uuid)).toEqual(['u1', 'u2']);
  });

  it('a malformed dataset names the file, the line and the field', async () => {
    const dataset = join(dir, 'bad.jsonl');
    const u = user('u1', 'Ana Lima');
    (u.sessions[0]!.memory_points[0] as Record<string, unknown>).memory_type = 'Mood Memory';
    writeFileSync(dataset, `${JSON.stringify(u)}\n`);
    await expect(runMemorySystem({ dataset, system: recorder(), out: join(dir, 'o.jsonl') })).rejects.toThrow(
      /bad\.jsonl, record 1, field sessions\[0\]\.memory_points\[0\]\.memory_type/,
    );
  });
});

describe('baselines', () => {
  const calls: ChatMessage[][] = [];
  const model: ChatModel = {
    id: 'scripted',
    async chat(messages) {
      calls.push(messages);
      const prompt = messages[0]!.content;
      if (prompt.includes('"memories"')) {
        if (prompt.includes('broken')) return { text: 'no json here', finishReason: 'stop' };
        const lines = [...prompt.matchAll(/\]user: (.*)/g)].map((m) => `Ana: ${m[1]}`);
        return { text: `\`\`\`json\n${JSON.stringify({ memories: lines })}\n\`\`\``, finishReason: 'stop' };
      }
      return { text: ' answer \n', finishReason: 'stop' };
    },
  };
  const session = (content: string, index: number): SessionInput => ({
    user: { uuid: 'u', name: 'Ana', personaInfo: '' },
    index,
    startTime: `Jan 0${index + 1}, 2025, 10:00:00`,
    dialogue: [turn('user', content), turn('assistant', 'ok')],
    isGeneratedQaSession: false,
  });

  it('extract-retrieve: extracts with the model, stores dated memories, retrieves lexically, answers from them', async () => {
    calls.length = 0;
    const b = new ExtractRetrieveBaseline({ model, chunkTurns: 1 });
    await b.startUser({ uuid: 'u', name: 'Ana', personaInfo: '' });
    expect(await b.addSession(session('I adopted a dog named Rex.', 0))).toEqual({
      extractedMemories: ['Ana: I adopted a dog named Rex.'],
    });
    await b.addSession(session('I work at the harbour.', 1));
    expect(await b.addSession(session('broken', 2))).toEqual({ extractedMemories: [] });
    expect(b.extractionFailures).toBeGreaterThan(0);
    const r = await b.retrieve({
      user: { uuid: 'u', name: 'Ana', personaInfo: '' },
      query: 'What is the name of the dog?',
      topK: 5,
      purpose: 'question',
    });
    expect(r.memories).toEqual(['Jan 01, 2025, 10:00:00: Ana: I adopted a dog named Rex.']);
    const a = await b.answer({ user: { uuid: 'u', name: 'Ana', personaInfo: '' }, question: 'Dog?', retrieval: r });
    expect(a).toBe('answer');
    expect(calls[calls.length - 1]![0]!.content).toContain(
      'Jan 01, 2025, 10:00:00: Ana: I adopted a dog named Rex.\n\nQuestion: Dog?',
    );
  });

  it('full-context: user turns as extracted memories, answers from the whole history', async () => {
    calls.length = 0;
    const b = new FullContextBaseline({ model });
    await b.startUser({ uuid: 'u', name: 'Ana', personaInfo: '' });
    expect(await b.addSession(session('I adopted a dog named Rex.', 0))).toEqual({
      extractedMemories: ['I adopted a dog named Rex.'],
    });
    await b.addSession(session('I work at the harbour.', 1));
    const r = await b.retrieve({
      user: { uuid: 'u', name: 'Ana', personaInfo: '' },
      query: 'harbour work',
      topK: 3,
      purpose: 'question',
    });
    expect(r.memories).toEqual(['[Jan 05, 2025, 10:00:00] I work at the harbour.']);
    expect(r.context).toMatch(/full dialogue history: 2 sessions/);
    await b.answer({
      user: { uuid: 'u', name: 'Ana', personaInfo: '' },
      question: 'Where does Ana work?',
      retrieval: r,
    });
    const prompt = calls[0]![0]!.content;
    expect(prompt).toContain(
      '[Jan 05, 2025, 10:00:00]user: I adopted a dog named Rex.\n[Jan 05, 2025, 10:00:00]assistant: ok\n',
    );
    expect(prompt).toContain('user: I work at the harbour.');
    const none = new FullContextBaseline({ model, extraction: 'none' });
    expect(await none.addSession(session('x y z', 0))).toEqual({ extractedMemories: [] });
  });

  it('lexical index: BM25 ranking, stop words, recency on ties', () => {
    expect(tokenize("What is the Dog's name?")).toEqual(['dog', 's', 'name']);
    const idx = new LexicalIndex();
    idx.add('Ana likes tea');
    idx.add('Ana likes coffee and tea and tea');
    idx.add('Bo likes tea');
    expect(idx.search('coffee', 5)).toEqual(['Ana likes coffee and tea and tea']);
    expect(idx.search('unrelated', 5)).toEqual([]);
    // "Ana likes tea" and "Bo likes tea" tie on "likes": the later one first
    expect(idx.search('likes', 2)).toEqual(['Bo likes tea', 'Ana likes tea']);
  });

  it('persona name as the HaluMem adapters take it', () => {
    expect(personaName('Name: Martin Mark; Gender: Male; ...')).toBe('Martin Mark');
    expect(personaName('no name here')).toBeUndefined();
  });
});
