import type { View } from '../data';
import { cgtView } from './cgt';
import { genericView } from './generic';
import { llmJudgeView } from './llm-judge';
import { memoryView } from './memory';
import { multiwozView } from './multiwoz';
import { scorekeepingView } from './scorekeeping';

const VIEWS: Record<string, View> = {
  multiwoz: multiwozView,
  'llm-judge': llmJudgeView,
  scorekeeping: scorekeepingView,
  memory: memoryView,
  cgt: cgtView,
};

/** The view made for `benchmark`, or the generic one. */
export const viewFor = (benchmark: string): View => VIEWS[benchmark] ?? genericView;
