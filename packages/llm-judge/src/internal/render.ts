import type { ChatMessage } from '@eval/core';
import { pythonFormat } from './python';
import { PyDict, pythonRepr } from './python';
import type { TurnRecord } from './records';
import type { PromptTemplate } from './templates';

/** The reference's system message (`gpt_generator.py`). */
export const REFERENCE_SYSTEM_MESSAGE = 'You are a helpful assistant';
/** The reference's sampling temperature. */
export const REFERENCE_TEMPERATURE = 0;
/** The model the reference used (GPT-4 Turbo); the port's model is the user's choice. */
export const REFERENCE_MODEL = 'gpt-4-1106-preview';

/**
 * The placeholder output the reference stores for two-step accuracy calls it skips (empty predicted turn
 * label): Python's `str({"explanation": "", "incorrect_domain_slot": {}})`, with an empty prompt.
 */
export const SKIPPED_ACCURACY_OUTPUT = "{'explanation': '', 'incorrect_domain_slot': {}}";

/** `construct_history`: `{"Turn1": {"Agent": h[0], "user": h[1]}, "Turn2": ...}` (note "Agent" vs "user"). */
export function historyObject(history: readonly string[]): PyDict {
  const out = new PyDict();
  for (let i = 0, turn = 1; i < history.length; i += 2, turn++) {
    const t = new PyDict();
    t.set('Agent', history[i]!);
    t.set('user', history[i + 1] ?? '');
    out.set(`Turn${turn}`, t);
  }
  return out;
}

/** The `str.format` fields of a record, exactly as the reference builds them. */
export function promptFields(record: TurnRecord): Record<string, unknown> {
  return {
    history: pythonRepr(historyObject(record.history)),
    turn_label: pythonRepr(record.predictTurnLabel),
    user: record.user,
    system: record.system,
    last_state: new PyDict(),
  };
}

/** Renders a template on a record, byte-identical to the reference's `template.format(**fields)`. */
export function renderPrompt(template: PromptTemplate | string, record: TurnRecord): string {
  return pythonFormat(typeof template === 'string' ? template : template.text, promptFields(record));
}

/** The chat messages of one judge call: the reference's system message, then the prompt. */
export function judgeMessages(prompt: string, systemMessage: string = REFERENCE_SYSTEM_MESSAGE): ChatMessage[] {
  return [
    { role: 'system', content: systemMessage },
    { role: 'user', content: prompt },
  ];
}
