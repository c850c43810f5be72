/** Parsed flags of `dialeval memory` (types only): declared by `commands/memory.ts`, read by `actions/memory.ts`. */
import type { LlmFlags } from '../llm-options';
import type { RunFlags } from '../run-record';

/** How a metric with an empty denominator comes out: an error (the reference) or null. */
export type MemoryOnEmptyFlag = 'error' | 'null';

export interface MemoryRunFlags extends LlmFlags {
  system: string;
  data: string;
  out: string;
  maxUsers?: number;
  topKUpdate?: number;
  topKQuestion?: number;
  systemOption?: string[];
  answerPrompts?: string;
  answerPrompt?: 'MEMZERO' | 'ZEP' | 'MEMOS' | 'MEMOBASE';
  fresh?: boolean;
  summary?: string;
}

/** The aggregation options shared by `judge`, `aggregate` and `leaderboard`. */
export interface MemoryAggregationFlags {
  acceptBooleanIncluded?: boolean;
  typeAccuracyExcludesInterference?: boolean;
  onEmpty?: MemoryOnEmptyFlag;
}

export interface MemoryJudgeFlags extends LlmFlags, RunFlags, MemoryAggregationFlags {
  /** `MODEL[@BASE_URL]` (repeatable): more than one judge makes a panel. */
  judge?: string[];
  /** Files of human labels, each one more judge in the agreement. */
  human?: string[];
  out?: string;
  workDir?: string;
  routing?: 'reference' | 'corrected';
  maxUsers?: number;
  attempts?: number;
  format?: 'text' | 'json';
  summary?: string;
}

export interface MemoryAggregateFlags extends RunFlags, MemoryAggregationFlags {
  allowPartial?: boolean;
  artifact?: string;
  format?: 'text' | 'json' | 'report';
  out?: string;
  writeStat?: string;
}

export interface MemoryLeaderboardFlags extends Omit<MemoryAggregationFlags, 'typeAccuracyExcludesInterference'> {
  allowPartial?: boolean;
  names?: string;
  format?: 'table' | 'markdown' | 'csv' | 'json';
  out?: string;
}
