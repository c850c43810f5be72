import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunArtifact } from './files';
import {
  buildJudgeInputs,
  judgeInputCounts,
  renderDialogue,
  renderGoldenMemories,
  renderJudgePrompt,
  routesToUpdate,
  type JudgeInput,
  type JudgeInputs,
} from './inputs';
import {
  EVALUATION_PROMPT_FOR_MEMORY_ACCURACY,
  EVALUATION_PROMPT_FOR_MEMORY_INTEGRITY,
  EVALUATION_PROMPT_FOR_QUESTION,
  EVALUATION_PROMPT_FOR_UPDATE_MEMORY,
} from './judge-prompts.generated';
import type { RunArtifactUser } from './schema';
import { SAMPLE_ARTIFACT, SHARED_MEMORY, describeMemory } from './test/shared';

async function sampleUser(): Promise<RunArtifactUser> {
  const users: RunArtifactUser[] = [];
  for await (const { user } of readRunArtifact(SAMPLE_ARTIFACT)) users.push(user);
  expect(users).toHaveLength(1);
  return users[0]!;
}

interface Examples {
  judge_input_counts: Record<string, number>;
  examples: Array<{ judge: string; ssession_id: number; prompt: string }>;
}

describeMemory('judge templates', () => {
  const cases: Array<[string, string]> = [
    ['EVALUATION_PROMPT_FOR_MEMORY_INTEGRITY', EVALUATION_PROMPT_FOR_MEMORY_INTEGRITY],
    ['EVALUATION_PROMPT_FOR_MEMORY_ACCURACY', EVALUATION_PROMPT_FOR_MEMORY_ACCURACY],
    ['EVALUATION_PROMPT_FOR_UPDATE_MEMORY', EVALUATION_PROMPT_FOR_UPDATE_MEMORY],
    ['EVALUATION_PROMPT_FOR_QUESTION', EVALUATION_PROMPT_FOR_QUESTION],
  ];
  it.each(cases)('%s is byte-identical to the reference copy and to prompts/*.txt', (name, text) => {
    const reference = readFileSync(join(SHARED_MEMORY, 'judge_prompts', `${name}.txt`));
    const shipped = readFileSync(join(__dirname, '..', '..', 'prompts', `${name}.txt`));
    expect(Buffer.from(text, 'utf8').equals(reference)).toBe(true);
    expect(shipped.equals(reference)).toBe(true);
    expect(text.endsWith('```\n')).toBe(true);
  });
});

describeMemory('buildJudgeInputs on the shared sample artifact (parity with rendered_prompt_examples.json)', () => {
  const expected = JSON.parse(readFileSync(join(SHARED_MEMORY, 'rendered_prompt_examples.json'), 'utf8')) as Examples;
  let inputs: JudgeInputs;

  it('gives the reference counts', async () => {
    inputs = buildJudgeInputs(await sampleUser());
    const counts = judgeInputCounts(inputs);
    expect(counts.integrity_inputs).toBe(expected.judge_input_counts.integrity_inputs);
    expect(counts.integrity_inputs_skipped_empty_extracted).toBe(
      expected.judge_input_counts['integrity_inputs_skipped_empty_extracted(score=0 without LLM)'],
    );
    expect(counts.accuracy_inputs).toBe(expected.judge_input_counts.accuracy_inputs);
    expect(counts.update_inputs).toBe(expected.judge_input_counts.update_inputs);
    expect(counts.qa_inputs).toBe(expected.judge_input_counts.qa_inputs);
    // spec §2: 163 + 24 golden points = 187 (100 system, 71 secondary, 16 interference)
    expect(counts.integrity_inputs + counts.update_inputs).toBe(187);
  });

  it('renders each example prompt exactly', async () => {
    inputs ??= buildJudgeInputs(await sampleUser());
    // spec parity table: integrity = first input of session 0, accuracy = first extracted memory of session 4,
    // update = first update point of session 3, question = SECOND question of session 0
    const pick: Record<string, (sid: number) => JudgeInput> = {
      memory_integrity: (sid) => inputs.integrity.filter((i) => i.record.ssession_id === sid)[0]!,
      memory_accuracy: (sid) => inputs.accuracy.filter((i) => i.record.ssession_id === sid)[0]!,
      memory_update: (sid) => inputs.update.filter((i) => i.record.ssession_id === sid)[0]!,
      question: (sid) => inputs.question.filter((i) => i.record.ssession_id === sid)[1]!,
    };
    expect(expected.examples.map((e) => e.judge).sort()).toEqual(Object.keys(pick).sort());
    for (const example of expected.examples) {
      const input = pick[example.judge]!(example.ssession_id);
      expect(renderJudgePrompt(input), `${example.judge} s${example.ssession_id}`).toBe(example.prompt);
    }
    expect(inputs.question.filter((i) => i.record.ssession_id === 0)[1]!.record.question).toBe(
      "What is Martin Mark's birth date?",
    );
  });

  it('keeps every field of the point in order, then uuid and ssession_id', async () => {
    const user = await sampleUser();
    inputs ??= buildJudgeInputs(user);
    const first = inputs.integrity[0]!;
    const point = (user.sessions[0] as { memory_points: object[] }).memory_points[0]!;
    expect(Object.keys(first.record)).toEqual([...Object.keys(point), 'uuid', 'ssession_id']);
    expect(first.record.uuid).toBe('2f1f897e-d67f-dbc5-6a7b-b7634a9e294f');
    expect(Object.keys(inputs.accuracy[0]!.record)).toEqual(['uuid', 'ssession_id', 'memory_content']);
    // records are copies: the artifact is not mutated
    first.record.memory_content = 'changed';
    expect((point as { memory_content: string }).memory_content).not.toBe('changed');
  });
});

describe('routing and string rules', () => {
  const turn = (role: string, content: string) => ({ role, content, timestamp: 'Jan 01, 2025, 10:00:00' });
  const point = (over: Record<string, unknown>) => ({
    memory_content: 'm',
    memory_type: 'Persona Memory',
    memory_source: 'system',
    is_update: 'False',
    original_memories: [],
    importance: 0.75,
    ...over,
  });

  it('renders the dialogue with a blank line after each assistant turn', () => {
    const text = renderDialogue([turn('user', 'hi'), turn('assistant', 'hello'), turn('user', 'bye')]);
    expect(text).toBe(
      '[Jan 01, 2025, 10:00:00]user: hi\n[Jan 01, 2025, 10:00:00]assistant: hello\n\n[Jan 01, 2025, 10:00:00]user: bye',
    );
  });

  it('excludes interference points from the golden memories', () => {
    expect(
      renderGoldenMemories([
        point({ memory_content: 'a' }),
        point({ memory_content: 'b', memory_source: 'interference' }),
        point({ memory_content: 'c' }),
      ]),
    ).toBe('a\nc');
  });

  it('routes like the reference by default, and like the adapters with routing "corrected"', () => {
    const withResults = point({ is_update: 'True', original_memories: ['old'], memories_from_system: ['x'] });
    const noResults = point({ is_update: 'True', original_memories: ['old'], memories_from_system: [] });
    const boolFlag = point({ is_update: true, original_memories: ['old'], memories_from_system: ['x'] });
    expect(routesToUpdate(withResults as never)).toBe(true);
    expect(routesToUpdate(noResults as never)).toBe(false); // quirk 2: falls back to integrity
    expect(routesToUpdate(boolFlag as never)).toBe(false); // only the STRING "True" counts
    expect(routesToUpdate(noResults as never, 'corrected')).toBe(true);
    expect(routesToUpdate(boolFlag as never, 'corrected')).toBe(true);
    expect(routesToUpdate(point({ is_update: 'True', memories_from_system: ['x'] }) as never, 'corrected')).toBe(false);
  });

  it('skips generated-QA sessions but keeps their enumerate index; empty extraction is flagged', () => {
    const user = {
      uuid: 'u1',
      user_name: 'Ann',
      sessions: [
        { is_generated_qa_session: true, add_dialogue_duration_ms: 5 },
        {
          memory_points: [
            point({ memory_content: 'likes tea' }),
            point({ is_update: 'True', original_memories: ['o'] }),
          ],
          dialogue: [turn('user', 'I like tea'), turn('assistant', 'ok')],
          extracted_memories: ['  ', ''],
          questions: [
            {
              question: 'q?',
              answer: 'a',
              evidence: [{ memory_content: 'e1' }, { memory_content: 'e2' }],
              system_response: null,
            },
          ],
        },
      ],
    };
    const inputs = buildJudgeInputs(user as never);
    expect(inputs.skippedSessions).toBe(1);
    expect(inputs.integrity.map((i) => i.record.ssession_id)).toEqual([1, 1]);
    expect(inputs.integrity.every((i) => i.emptyExtraction && i.memories === '  \n')).toBe(true);
    expect(inputs.accuracy).toHaveLength(2);
    const corrected = buildJudgeInputs(user as never, { routing: 'corrected' });
    expect(corrected.update).toHaveLength(1);
    expect(corrected.update[0]!.emptyRetrieval).toBe(true);
    // Python str.format of None is "None"; evidence is "\n"-joined
    const prompt = renderJudgePrompt(inputs.question[0]!);
    expect(prompt).toContain('* **Memory System Response:**\n  None\n');
    expect(prompt).toContain('* **Key Memory Points:**\n  e1\ne2\n');
  });
});
