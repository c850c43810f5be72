import type { ChatModel } from '@eval/core';
import { chatJson } from '@eval/llm';
import { z } from 'zod';
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
import {
  ANSWER_PROMPT_FIELDS,
  DEFAULT_ANSWER_PROMPT,
  DEFAULT_EXTRACTION_PROMPT,
  EXTRACTION_PROMPT_FIELDS,
} from './prompts';

export interface ExtractRetrieveOptions {
  /** Extracts memories and answers questions (a core ChatModel; the CLI passes `@eval/llm`'s cached one). */
  model: ChatModel;
  /** Extraction prompt with fields `user_name`, `dialogue` (default {@link DEFAULT_EXTRACTION_PROMPT}). */
  extractionPrompt?: string;
  /** Answer prompt with fields `context`, `question`, `user_name` (default {@link DEFAULT_ANSWER_PROMPT}); a HaluMem `PROMPT_*` from `loadAnswerPrompts` works as is. */
  answerPrompt?: string;
  /** Dialogue turns per extraction call (long sessions are split; default 40). */
  chunkTurns?: number;
  /** Extract from HaluMem-Long distractor sessions too (default false: they are added but not mined). */
  extractFromGeneratedQa?: boolean;
  temperature?: number;
  maxTokens?: number;
}

const extractionSchema = z.object({ memories: z.array(z.string()) });

/**
 * Extract-then-retrieve baseline: after each session a ChatModel lists the facts worth remembering (JSON), which are
 * stored append-only with the session date; retrieval is lexical (BM25, see `LexicalIndex`), and questions are
 * answered by the ChatModel from the top memories. It never rewrites or deletes a memory, so updates are only
 * "reflected" when the new fact is retrieved next to the old one.
 */
export class ExtractRetrieveBaseline implements MemorySystem {
  readonly name = 'extract-retrieve';
  /** Extraction calls whose answer held no usable JSON (that chunk contributed no memories). */
  extractionFailures = 0;
  private index = new LexicalIndex();
  private readonly options: ExtractRetrieveOptions;

  constructor(options: ExtractRetrieveOptions) {
    if (options.answerPrompt !== undefined)
      assertTemplateFields(options.answerPrompt, ANSWER_PROMPT_FIELDS, 'answerPrompt');
    if (options.extractionPrompt !== undefined)
      assertTemplateFields(options.extractionPrompt, EXTRACTION_PROMPT_FIELDS, 'extractionPrompt');
    this.options = options;
  }

  async startUser(_user: MemoryUser): Promise<void> {
    this.index = new LexicalIndex();
  }

  private chatOptions() {
    return {
      temperature: this.options.temperature ?? 0,
      ...(this.options.maxTokens ? { maxTokens: this.options.maxTokens } : {}),
    };
  }

  async addSession(session: SessionInput): Promise<AddSessionResult> {
    if (session.isGeneratedQaSession && !this.options.extractFromGeneratedQa) return { extractedMemories: [] };
    const size = Math.max(1, this.options.chunkTurns ?? 40);
    const extracted: string[] = [];
    for (let i = 0; i < session.dialogue.length; i += size) {
      const chunk = session.dialogue.slice(i, i + size);
      const prompt = pyFormat(this.options.extractionPrompt ?? DEFAULT_EXTRACTION_PROMPT, {
        user_name: session.user.name,
        dialogue: renderDialogue(chunk),
      });
      const r = await chatJson(this.options.model, [{ role: 'user', content: prompt }], {
        schema: extractionSchema,
        extract: 'last-fenced',
        chat: this.chatOptions(),
      });
      if (!r.ok) {
        this.extractionFailures++;
        continue;
      }
      for (const m of r.value.memories) {
        const memory = m.trim();
        if (memory) extracted.push(memory);
      }
    }
    const date = session.startTime ?? session.dialogue[0]?.timestamp ?? '';
    for (const m of extracted) this.index.add(date ? `${date}: ${m}` : m);
    return { extractedMemories: extracted };
  }

  async retrieve(request: RetrieveRequest): Promise<Retrieval> {
    return { memories: this.index.search(request.query, request.topK) };
  }

  async answer(request: AnswerRequest): Promise<string> {
    const prompt = pyFormat(this.options.answerPrompt ?? DEFAULT_ANSWER_PROMPT, {
      context: request.retrieval.context ?? request.retrieval.memories.join('\n'),
      question: request.question,
      user_name: request.user.name,
    });
    const r = await this.options.model.chat([{ role: 'user', content: prompt }], this.chatOptions());
    return r.text.trim();
  }
}
