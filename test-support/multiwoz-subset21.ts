/**
 * MultiWOZ test inputs from the reference data: mwzeval's `data/` layout built with symlinks (databases, booked
 * domains, the reconstructed test goals, and the 21-dialogue subset's references and gold states), and prediction
 * files cut to those 21 dialogues. Guard the tests that use it with `describeWithReferenceData('multiwoz')`.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { referencePath } from './reference-data';

export interface MultiwozSubset21 {
  /** The data directory (pass as `--data`). */
  data: string;
  /** Writes `work/<fileName>`: the predictions of system `name` for the 21 dialogues, and returns its path. */
  subset(name: string, fileName?: string): string;
}

/** Builds the data directory under `work` (call once, e.g. in `beforeAll`, after checking the data is there). */
export function multiwozSubset21(work: string): MultiwozSubset21 {
  const mwz = referencePath('multiwoz');
  const data = join(work, 'data');
  mkdirSync(join(data, 'database'), { recursive: true });
  mkdirSync(join(data, 'references'));
  for (const d of ['attraction', 'hotel', 'restaurant', 'train'])
    symlinkSync(join(mwz, 'data', 'database', `${d}_db.json`), join(data, 'database', `${d}_db.json`));
  symlinkSync(
    join(mwz, 'data', 'database', 'restaurant_db.v2022.json'),
    join(data, 'database', 'restaurant_db.v2022.json'),
  );
  symlinkSync(join(mwz, 'data', 'booked_domains.json'), join(data, 'booked_domains.json'));
  symlinkSync(join(mwz, 'derived', 'goals_test_reconstructed.json'), join(data, 'goals.json'));
  symlinkSync(join(mwz, 'derived', 'subset21', 'mwz22_refs.json'), join(data, 'references', 'mwz22.json'));
  symlinkSync(join(mwz, 'derived', 'subset21', 'gold_states.json'), join(data, 'gold_states.json'));
  const ids = new Set(
    JSON.parse(readFileSync(join(mwz, 'derived', 'subset21', 'dialog_ids.json'), 'utf8')) as string[],
  );
  return {
    data,
    subset(name, fileName = `${name}.json`) {
      const all = JSON.parse(readFileSync(join(mwz, 'predictions', `${name}.json`), 'utf8')) as Record<string, unknown>;
      const file = join(work, fileName);
      writeFileSync(file, JSON.stringify(Object.fromEntries(Object.entries(all).filter(([id]) => ids.has(id)))));
      return file;
    },
  };
}
