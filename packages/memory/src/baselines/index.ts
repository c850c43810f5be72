export { FullContextBaseline, type FullContextOptions } from './full-context';
export { ExtractRetrieveBaseline, type ExtractRetrieveOptions } from './extract-retrieve';
export { LexicalIndex, tokenize } from './lexical';
export { DEFAULT_ANSWER_PROMPT, DEFAULT_EXTRACTION_PROMPT } from './prompts';
