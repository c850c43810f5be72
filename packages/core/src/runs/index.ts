// The zod schemas of the run record are the `@eval/core/schemas` entry: `@eval/core` itself loads without zod (it
// costs start-up time and memory in every command), and loads them only when it validates (reading a run, writing one).
export type {
  RunArtifact,
  RunBenchmark,
  RunFailure,
  RunInput,
  RunItem,
  RunItemValue,
  RunLlm,
  RunManifest,
  RunMetric,
  RunResource,
  RunStatus,
} from './schema';
export { RUN_SCHEMA_VERSION } from './version';
export {
  type MetricFormat,
  displayScale,
  formatMetricDifference,
  formatMetricValue,
  isPercentMetric,
  metricDigits,
} from './format';
export { type VerdictOptions, runNames, verdictSentence, verdictSentences } from './verdict';
export * from './writer';
export * from './reader';
export * from './compare';
