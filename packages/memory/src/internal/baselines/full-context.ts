import type { ChatModel } from '@eval/core';
import { renderDialogue } from '../inputs';
import { assertTemplateFields } from '../answer-prompts';
import { pyFormat } from '../python';
import type {
  AddSessionResult,
  AnswerRequest,
  MemorySystem,
  MemoryUser,
  Retrieval,
  RetrieveRequest,
  SessionInput,
} from '../system';
import { LexicalIndex } from './lexical';
import { ANSWER_PROMPT_FIELDS, DEFAULT_ANSWER_PROMPT } from './prompts';

export interface FullContextOptions {
  /** Answers questions (a core ChatModel; the CLI passes `@eval/llm`'s cached one). */
  model: ChatModel;
  /** Answer prompt with fields `context`, `question`, `user_name` (default: this project's {@link DEFAULT_ANSWER_PROMPT}); a HaluMem `PROMPT_*` from `loadAnswerPrompts` works as is. */
  answerPrompt?: string;
  /**
   * What the baseline reports as "extracted memories": `user-turns` (default) reports each user utterance of the
   * session verbatim (the raw dialogue is its memory); `none` reports nothing (integrity then scores 0 without calls
   * and the accuracy metrics have empty denominators, as for HaluMem's Zep).
   */
  extraction?: 'user-turns' | 'none';
  /** Keep at most this many characters of dialogue history in the answer context, the most recent (default 400,000). */
  maxContextChars?: number;
  temperature?: number;
  maxTokens?: number;
}

/**
 * Full-context baseline: stores the raw dialogue and answers every question from the whole conversation so far
 * (truncated to the most recent `maxContextChars`). Retrieval (recorded for update points and questions) is lexical
 * (BM25) over the user's past utterances; a question's recorded `context` describes the history it was answered from.
 */
export class FullContextBaseline implements MemorySystem {
  readonly name = 'full-context';
  private lines: string[] = [];
  private chars = 0;
  private index = new LexicalIndex();
  private readonly options: FullContextOptions;

  constructor(options: FullContextOptions) {
    if (options.answerPrompt !== undefined)
      assertTemplateFields(options.answerPrompt, ANSWER_PROMPT_FIELDS, 'answerPrompt');
    this.options = options;
  }

  async startUser(_user: MemoryUser): Promise<void> {
    this.lines = [];
    this.chars = 0;
    this.index = new LexicalIndex();
  }

  async addSession(session: SessionInput): Promise<AddSessionResult> {
    const text = renderDialogue(session.dialogue);
    this.lines.push(text);
    this.chars += text.length + 1;
    const extracted: string[] = [];
    for (const turn of session.dialogue) {
      if (turn.role !== 'user') continue;
      this.index.add(turn.timestamp ? `[${turn.timestamp}] ${turn.content}` : turn.content);
      extracted.push(turn.content);
    }
    return {
      extractedMemories:
        (this.options.extraction ?? 'user-turns') === 'user-turns' && !session.isGeneratedQaSession ? extracted : [],
    };
  }

  private history(): string {
    const max = this.options.maxContextChars ?? 400_000;
    let text = this.lines.join('\n');
    if (text.length > max) text = text.slice(text.length - max);
    return text;
  }

  async retrieve(request: RetrieveRequest): Promise<Retrieval> {
    const memories = this.index.search(request.query, request.topK);
    if (request.purpose === 'update') return { memories };
    // The answer is produced from the whole history; the artifact records a description, not a copy per question.
    return {
      memories,
      context: `(full dialogue history: ${this.lines.length} sessions, ${Math.min(this.chars, this.options.maxContextChars ?? 400_000)} characters)`,
    };
  }

  async answer(request: AnswerRequest): Promise<string> {
    const prompt = pyFormat(this.options.answerPrompt ?? DEFAULT_ANSWER_PROMPT, {
      context: this.history(),
      question: request.question,
      user_name: request.user.name,
    });
    const r = await this.options.model.chat([{ role: 'user', content: prompt }], {
      temperature: this.options.temperature ?? 0,
      ...(this.options.maxTokens ? { maxTokens: this.options.maxTokens } : {}),
    });
    return r.text.trim();
  }
}
