/**
 * Prompts of the two baseline memory systems. Written for this project (they are NOT HaluMem's answer prompts,
 * which are not shipped): Python `str.format`-style templates, `{{`/`}}` escape literal braces.
 */

/** This project's default answer prompt (fields: `context`, `question`, `user_name`). */
export const DEFAULT_ANSWER_PROMPT = `You answer questions about {user_name} using only what a memory system has stored about them.

What the memory system provides (lines may start with the date they were recorded):
{context}

Question: {question}

How to answer:
- Rely only on the material above; do not guess.
- If two pieces disagree, the more recent one holds.
- Turn relative dates ("last month", "two years ago") into absolute dates using the dates shown.
- If the material does not contain the answer, say that it is unknown.
- Reply with the answer alone, in a few words.
`;

/** This project's default memory-extraction prompt (fields: `user_name`, `dialogue`). */
export const DEFAULT_EXTRACTION_PROMPT = `Below is part of a conversation between {user_name} and an AI assistant. List what is worth remembering about {user_name} for later conversations: personal details, preferences, relationships, plans, events and changes to earlier facts, with dates when the conversation gives them.

Write each item as one self-contained sentence that names {user_name}. Keep only what {user_name} says or confirms; leave out claims the assistant makes that {user_name} does not take up, and leave out small talk.

Conversation:
{dialogue}

Reply with JSON only, in a fenced block:
\`\`\`json
{{"memories": ["...", "..."]}}
\`\`\`
`;

/**
 * The fields the baselines fill in an answer prompt. HaluMem's `PROMPT_*` (see `loadAnswerPrompts`) use `{context}` and
 * `{question}` only, which the baselines fill as HaluMem's adapters do (`context`: what the system retrieved, `question`:
 * the dataset question); `user_name` is an extra that Python's `str.format` (and `pyFormat`) ignores when unused.
 */
export const ANSWER_PROMPT_FIELDS = ['context', 'question', 'user_name'] as const;

/** The fields the extract-retrieve baseline fills in its extraction prompt. */
export const EXTRACTION_PROMPT_FIELDS = ['user_name', 'dialogue'] as const;
