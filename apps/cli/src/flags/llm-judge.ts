/** Parsed flags of `dialeval llm-judge` (types only): declared by `commands/llm-judge.ts`, read by `actions/llm-judge.ts`. */
import type { LlmFlags } from '../llm-options';
import type { RunFlags } from '../run-record';

/** Options shared by every subcommand that integrates judge outputs and computes metrics (commander fills the defaults). */
export interface LlmJudgeMetricFlags {
  onParseFailure?: 'reference' | 'skip' | 'judge-wrong';
  completenessValueAware?: boolean;
  gptJga?: 'before-turn' | 'after-turn';
  ruleJga?: 'fixed' | 'reference';
  ruleNormalization?: 'method' | 'two-step' | 'single-step';
}

export type LlmJudgeMethodFlag = 'ours' | 'twodim-cot' | 'direct' | 'cot';
export type LlmJudgeRoleFlag =
  | 'ours-accuracy'
  | 'ours-completeness'
  | 'twodim-cot-accuracy'
  | 'twodim-cot-completeness'
  | 'direct'
  | 'cot';

/** Where per-turn records come from: a record file, or predictions converted on the fly. */
export interface LlmJudgeInputFlags {
  records?: string;
  rawPredictions?: string;
  states?: string;
  dialogues?: string;
  dialoguesM24?: string;
  data?: string;
}

export interface LlmJudgeRunFlags extends LlmFlags, LlmJudgeMetricFlags, LlmJudgeInputFlags, RunFlags {
  namespace?: string;
  method: LlmJudgeMethodFlag;
  /** Template directories (repeatable): each (judge, templates) pair is one judge of a panel. */
  templates?: string[];
  /** `MODEL[@BASE_URL]` (repeatable): more than one judge makes a panel. */
  judge?: string[];
  /** Files of human labels of the turn verdict, each one more judge in the agreement. */
  human?: string[];
  out: string;
  journal?: string;
  systemMessage?: string;
  format?: 'table' | 'json';
  summary?: string;
}

export interface LlmJudgeImportFlags {
  namespace?: string;
  templates?: string;
  model: string;
  cacheDir?: string;
  temperature?: number;
  systemMessage?: string;
  role?: LlmJudgeRoleFlag;
  verifyOnly?: boolean;
  format?: 'table' | 'json';
}

export interface LlmJudgeReportFlags extends LlmJudgeMetricFlags, RunFlags {
  allowPartial?: boolean;
  outputs?: string[];
  records?: string;
  human?: string;
  turns?: number;
  format?: 'table' | 'json';
  out?: string;
  perTurn?: boolean;
}

export interface LlmJudgeConvertFlags extends LlmJudgeInputFlags {
  out: string;
  summary?: string;
}
