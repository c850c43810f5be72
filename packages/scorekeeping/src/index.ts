// The game's texts: clembench's resource directory, or the built-in default texts (own wording).
export {
  EXPERIMENTS,
  loadResourceDir,
  resolveGameResources,
  type ExperimentName,
  type ExperimentTexts,
  type GameResources,
  type GameWords,
  type ResolveGameResourcesOptions,
} from './resources';
export { defaultResources } from './defaults';
// Instances: clembench's generator (CPython's random stream) and instances files.
export {
  formatInstances,
  generateInstances,
  generateInstancesFile,
  readInstancesFile,
  type FormatInstancesOptions,
  type GameInstance,
  type GenerateInstancesFileOptions,
  type GenerateInstancesOptions,
  type InstanceExperiment,
  type InstancesFile,
  type OverlapCheckMode,
} from './instances';
// One episode: the game master and the players (any ChatModel, a recorded transcript, perfect, clembench's mock).
export { playEpisode, type EpisodeResult, type GameMasterOptions } from './game-master';
export {
  chatModelAnswerer,
  mockModel,
  perfectAnswer,
  perfectModel,
  scriptedAnswererFromFile,
  type ChatModelAnswererOptions,
  type PerfectPlayerOptions,
} from './players';
export type {
  Answerer,
  AnswererCall,
  AnswererReply,
  InteractionEvent,
  Interactions,
  ProbeRecord,
  RequestRecord,
} from './types';
// The metrics: clembench's episode scores and clemeval's benchmark figures.
export {
  formatScoresJson,
  scoreEpisode,
  type EpisodeScores,
  type ScoreOptions,
  type ScoresJson,
} from './metrics/scorer';
export {
  aggregateScores,
  type BenchmarkReport,
  type EpisodeScoreRecord,
  type ExperimentRow,
  type GameModelRow,
  type ModelRow,
  type QualityFigures,
} from './metrics/aggregate';
// Many episodes into clembench's results layout (resumable), as `dialeval scorekeeping play` and `score` do.
export { runEpisodes, type EpisodeOutcome, type EpisodeRef, type RunEpisodesOptions, type RunSummary } from './run';
export {
  planScorekeepingRun,
  playScorekeeping,
  type PlayCostEstimate,
  type PlayGameOptions,
  type PlayJobResult,
  type PlayScorekeepingOptions,
  type RepeatSpread,
  type ScorekeepingPlan,
  type ScorekeepingPlayer,
  type ScorekeepingPlayResult,
  type ScorekeepingRunRecord,
} from './play';
export {
  readResults,
  scoreResults,
  type ReadResultsOptions,
  type ResultsReport,
  type ScoreResultsOptions,
  type ScoreResultsOutcome,
} from './results';
// The run record.
export {
  SCOREKEEPING_BENCHMARK,
  loadRunEpisodes,
  recompute,
  runBenchmark,
  scorekeepingRunItems,
  scorekeepingRunMetrics,
  type LoadRunEpisodesOptions,
  type RunEpisode,
} from './runs';
