import { join } from 'node:path';
import {
  describeWithReferenceData,
  hasReferenceData,
  itWithReferenceData,
  referencePath,
} from '../../../../../test-support/reference-data';

/** The project's reference data (../shared/memory), never copied into the repo; guard tests with describeMemory/itMemory. */
export const SHARED_MEMORY = referencePath('memory');
export const HAS_MEMORY = hasReferenceData('memory');
export const describeMemory = describeWithReferenceData('memory');
export const itMemory = itWithReferenceData('memory');
export const SAMPLE_ARTIFACT = join(SHARED_MEMORY, 'sample_run_artifact_martin_mark_sessions0-11.jsonl');
