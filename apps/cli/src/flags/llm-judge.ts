/** Parsed flags of `dialeval llm-judge` (types only): declared by `commands/llm-judge.ts`, read by `actions/llm-judge.ts`. */
import type { LlmFlags } from '../llm-options';
import type { RunFlags } from '../run-record';

/** Options shared by every subcommand that integrates judge outputs and computes metrics. */
export interface LlmJudgeMetricFlags {
  onParseFailure?: string;
  completenessValueAware?: boolean;
  gptJga?: string;
  ruleJga?: string;
  ruleNormalization?: string;
}

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
  method: string;
  templates?: string;
  out: string;
  journal?: string;
  systemMessage?: string;
  format?: string;
  summary?: string;
}

export interface LlmJudgeImportFlags {
  namespace?: string;
  templates?: string;
  model: string;
  cacheDir?: string;
  temperature?: number;
  systemMessage?: string;
  role?: string;
  verifyOnly?: boolean;
  format?: string;
}

export interface LlmJudgeReportFlags extends LlmJudgeMetricFlags, RunFlags {
  allowPartial?: boolean;
  outputs?: string[];
  records?: string;
  human?: string;
  turns?: number;
  format?: string;
  out?: string;
  perTurn?: boolean;
}

export interface LlmJudgeConvertFlags extends LlmJudgeInputFlags {
  out: string;
  summary?: string;
}
