import { cgtDemo } from './cgt';
import { llmJudgeDemo } from './llm-judge';
import { memoryDemo } from './memory';
import { multiwozDemo } from './multiwoz';
import { scorekeepingDemo } from './scorekeeping';

/** One built-in demo per package: small examples written for this project (never copied from reference data). */
export interface DemoResult {
  /** Human-readable summary lines. */
  lines: string[];
  /** Machine-readable figures. */
  data: unknown;
}

export interface DemoEntry {
  name: string;
  title: string;
  run: () => Promise<DemoResult>;
}

export const demos: DemoEntry[] = [cgtDemo, memoryDemo, scorekeepingDemo, llmJudgeDemo, multiwozDemo];
