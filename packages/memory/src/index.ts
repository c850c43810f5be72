// The run record: the benchmark's name, its descriptor for `compare`/`runs`/`report`, items and metrics of a run
export { MEMORY_BENCHMARK, memoryRunItems, memoryRunMetrics, memoryRunSetup, recompute, runBenchmark } from './runs';
export type { MemoryVariantOptions } from './runs';

// The metrics: HaluMem's aggregate (`aggregate_eval_results`), its breakdowns and the leaderboard view
export { aggregateEvalResults as evaluateMemory, qaBreakdown } from './metrics';
export type {
  AggregateOptions,
  MemoryAccuracyScore,
  MemoryIntegrityScore,
  MemoryUpdateScore,
  OverallScore,
  QaGroupScore,
  QuestionAnsweringScore,
  TimeConsuming,
  TypeAccuracy,
} from './metrics';
export { leaderboardRow, leaderboardTable } from './internal/leaderboard';
export type { LeaderboardRow } from './internal/leaderboard';

// Reading inputs: the dataset, run artifacts, judged records
export { computeTimeConsuming, readDataset, readRunArtifact } from './internal/files';
export { readEvalRecords } from './internal/workflow';
export type { DatasetUser, EvalRecords, MemoryType, RunArtifactUser } from './internal/schema';

// Judging a run artifact with the four HaluMem judges
export { buildJudgeInputs, renderJudgePrompt } from './internal/inputs';
export type { JudgeInput, JudgeInputs, JudgeKind, Routing } from './internal/inputs';
export { formatStatResult, judgeRunArtifact } from './internal/judge';
export type { JudgeRunOptions, JudgeRunResult, JudgeSettings } from './internal/judge';
export { describeJudgeRun, judgeUserLines, overallScoreJson, unfinishedJudgeRuns } from './internal/workflow';

// Running a memory system over the dataset, and the two baselines
export { runMemorySystem } from './internal/system';
export type {
  AddSessionResult,
  AnswerRequest,
  MemorySystem,
  MemoryUser,
  Retrieval,
  RetrieveRequest,
  RunMemorySystemOptions,
  RunMemorySystemResult,
  SessionInput,
} from './internal/system';
export { loadMemorySystem } from './internal/workflow';
export { loadAnswerPrompts, renderAnswerPrompt, renderContextTemplate } from './internal/answer-prompts';
export type { AnswerPromptSystem, HaluMemAnswerPrompts } from './internal/answer-prompts';
export type { LoadedMemorySystem, LoadMemorySystemOptions } from './internal/workflow';
export { ExtractRetrieveBaseline, FullContextBaseline } from './internal/baselines/index';
export type { ExtractRetrieveOptions, FullContextOptions } from './internal/baselines/index';
