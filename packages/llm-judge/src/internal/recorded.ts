import { InputError, type ReadOptions } from '@eval/core';
import { stringifyJson } from './json';
import { typeName } from './python';
import { readJsonListOrdered, recordFromPy, recordToJson, type TurnRecord } from './records';
import { renderPrompt } from './render';
import type { PromptTemplate } from './templates';

/** One entry of a judge-output file: the reference's `[align_data, gpt_output, gpt_input]`. */
export interface OutputEntry {
  record: TurnRecord;
  /** The raw completion text; `''` marks a failed call (the reference's convention after 3 failed attempts). */
  output: string;
  /** The rendered prompt; `''` for a skipped two-step accuracy call. */
  prompt: string;
  /** 0-based position in its file (for messages). */
  index: number;
}

/**
 * Reads a judge-output file (a JSON list of `[align_data, gpt_output, gpt_input]`, optionally gzip), in file
 * order. Every record is validated; errors name the file, the entry and the field. `read.onRead` sees the file's bytes
 * as read (a run record hashes them).
 */
export async function readOutputEntries(file: string, read?: ReadOptions): Promise<OutputEntry[]> {
  const values = await readJsonListOrdered(file, read);
  return values.map((v, index) => {
    if (!Array.isArray(v) || v.length !== 3) {
      throw new InputError(
        `expected [align_data, gpt_output, gpt_input], got ${Array.isArray(v) ? `a list of ${v.length}` : typeName(v)}`,
        { file, record: index },
      );
    }
    const [align, output, prompt] = v;
    if (typeof output !== 'string')
      throw new InputError(`gpt_output must be a string, got ${typeName(output!)}`, {
        file,
        record: index,
        field: [1],
      });
    if (typeof prompt !== 'string')
      throw new InputError(`gpt_input must be a string, got ${typeName(prompt!)}`, { file, record: index, field: [2] });
    return { record: recordFromPy(align!, { file, record: index }), output, prompt, index };
  });
}

/** Serialises entries in the reference's format (2-space indentation, like its `json.dump(..., indent=2)`). */
export function serializeOutputEntries(entries: readonly OutputEntry[]): string {
  return `${stringifyJson(
    entries.map((e) => [recordToJson(e.record), e.output, e.prompt]),
    2,
  )}\n`;
}

export interface PromptMismatch {
  index: number;
  flag: string;
  /** 0-based offset of the first differing character. */
  offset: number;
  expected: string;
  actual: string;
}

export interface PromptCheck {
  checked: number;
  /** Entries with an empty prompt (skipped accuracy calls), not rendered. */
  placeholders: number;
  mismatches: PromptMismatch[];
}

/**
 * Re-renders every entry's prompt with `template` and compares it with the recorded one, byte for byte.
 * Entries with an empty recorded prompt are skipped accuracy calls and are only counted.
 */
export function verifyPrompts(entries: readonly OutputEntry[], template: PromptTemplate): PromptCheck {
  const result: PromptCheck = { checked: 0, placeholders: 0, mismatches: [] };
  for (const e of entries) {
    if (e.prompt === '') {
      result.placeholders++;
      continue;
    }
    result.checked++;
    const rendered = renderPrompt(template, e.record);
    if (rendered !== e.prompt) {
      let offset = 0;
      while (offset < rendered.length && rendered[offset] === e.prompt[offset]) offset++;
      result.mismatches.push({
        index: e.index,
        flag: e.record.flag,
        offset,
        expected: e.prompt.slice(Math.max(0, offset - 20), offset + 40),
        actual: rendered.slice(Math.max(0, offset - 20), offset + 40),
      });
    }
  }
  return result;
}
