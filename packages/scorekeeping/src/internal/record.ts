import { dirname, join } from 'node:path';
import type { ScorekeepingRunRecord } from '../play';
import { SCOREKEEPING_BENCHMARK, scorekeepingRunItems, scorekeepingRunMetrics } from '../runs';

/** A run record of scorekeeping episodes with its {@link ScorekeepingRunRecord.writeTo}. */
export function runRecord(fields: Omit<ScorekeepingRunRecord, 'benchmark' | 'writeTo'>): ScorekeepingRunRecord {
  const record: ScorekeepingRunRecord = {
    benchmark: SCOREKEEPING_BENCHMARK,
    ...fields,
    async writeTo(run, extra = {}) {
      if (record.instancesFile) await run.addInput('instances', record.instancesFile);
      if (extra.resource) run.addResource(extra.resource);
      for (const e of record.episodes) {
        run.addArtifact(join(dirname(e.file), 'interactions.json'), 'clembench-interactions');
        run.addArtifact(e.file, 'clembench-scores');
      }
      await run.finish({
        items: scorekeepingRunItems(record.episodes, { runDir: run.dir }),
        metrics: scorekeepingRunMetrics(record.episodes),
        ...(extra.llm ? { llm: extra.llm } : {}),
      });
    },
  };
  return record;
}
