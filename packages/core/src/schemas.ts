/**
 * `@eval/core/schemas`: the zod schemas of the run record (`run.json`: {@link runManifestSchema}; `items.jsonl`:
 * {@link runItemSchema}), for code that validates runs itself. A separate entry so that `@eval/core` loads without
 * zod; its readers and writer load these when they validate.
 */
export {
  runArtifactSchema,
  runFailureSchema,
  runInputSchema,
  runItemSchema,
  runItemValueSchema,
  runLlmSchema,
  runManifestSchema,
  runMetricSchema,
  runResourceSchema,
  runStatusSchema,
} from './runs/schema';
export { RUN_SCHEMA_VERSION } from './runs/version';
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
} from './runs/schema';
