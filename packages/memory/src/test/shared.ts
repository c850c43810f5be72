import { join } from 'node:path';

/** The project's reference data (../shared relative to the repository root), never copied into the repo. */
export const SHARED_MEMORY = join(__dirname, '..', '..', '..', '..', '..', 'shared', 'memory');
export const SAMPLE_ARTIFACT = join(SHARED_MEMORY, 'sample_run_artifact_martin_mark_sessions0-11.jsonl');
