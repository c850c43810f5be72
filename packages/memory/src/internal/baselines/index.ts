export { FullContextBaseline, type FullContextOptions } from './full-context';
export { ExtractRetrieveBaseline, type ExtractRetrieveOptions } from './extract-retrieve';
export { LexicalIndex, tokenize } from './lexical';
export {
  ANSWER_PROMPT_FIELDS,
  DEFAULT_ANSWER_PROMPT,
  DEFAULT_EXTRACTION_PROMPT,
  EXTRACTION_PROMPT_FIELDS,
} from './prompts';
