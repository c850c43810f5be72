/** Parsed flags of `dialeval memory` (types only): declared by `commands/memory.ts`, read by `actions/memory.ts`. */
import type { LlmFlags } from '../llm-options';
import type { RunFlags } from '../run-record';

export interface MemoryRunFlags extends LlmFlags {
  system: string;
  data: string;
  out: string;
  maxUsers?: number;
  topKUpdate?: number;
  topKQuestion?: number;
  systemOption?: string[];
  answerPrompts?: string;
  answerPrompt?: string;
  fresh?: boolean;
  summary?: string;
}

export interface MemoryJudgeFlags extends LlmFlags, RunFlags {
  out?: string;
  workDir?: string;
  routing?: string;
  maxUsers?: number;
  attempts?: number;
  format?: string;
  summary?: string;
  acceptBooleanIncluded?: boolean;
  typeAccuracyExcludesInterference?: boolean;
  onEmpty?: string;
}

export interface MemoryAggregateFlags extends RunFlags {
  allowPartial?: boolean;
  artifact?: string;
  format?: string;
  out?: string;
  writeStat?: string;
  acceptBooleanIncluded?: boolean;
  typeAccuracyExcludesInterference?: boolean;
  onEmpty?: string;
}

export interface MemoryLeaderboardFlags {
  allowPartial?: boolean;
  names?: string;
  format?: string;
  out?: string;
  acceptBooleanIncluded?: boolean;
  onEmpty?: string;
}
