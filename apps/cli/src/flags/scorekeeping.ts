/** Parsed flags of `dialeval scorekeeping` (types only): declared by `commands/scorekeeping.ts`, read by `actions/scorekeeping.ts`. */
import type { LlmFlags } from '../llm-options';
import type { RunFlags } from '../run-record';

export interface ScorekeepingInstancesFlags {
  resources?: string;
  seed: number;
  perExperiment: number;
  indent?: number;
  lang: string;
  checkValues: 'case-sensitive' | 'case-insensitive' | 'off';
  allowOverlaps?: boolean;
  out?: string;
}

export interface ScorekeepingPlayFlags extends LlmFlags, RunFlags {
  out: string;
  player?: 'perfect' | 'mock';
  replay?: string;
  mockSeed: number;
  resources?: string;
  instances?: string;
  instancesSeed: number;
  experiments?: string[];
  episodes?: number[];
  episodeConcurrency: number;
  sequentialProbes?: boolean;
  coda: 'log-only' | 'send' | 'off';
  fixProbeSpacing?: boolean;
  yesNo: 'prefix' | 'word';
  slotMatch: 'substring' | 'word-boundary';
  strip: boolean;
  retryFailed: boolean;
  summary?: string;
  format: 'text' | 'json';
}

export interface ScorekeepingScoreFlags extends RunFlags {
  out?: string;
  slots?: number;
  check?: boolean;
}

export interface ScorekeepingReportFlags extends RunFlags {
  allowPartial?: boolean;
  format: 'table' | 'json' | 'csv';
  out?: string;
}
