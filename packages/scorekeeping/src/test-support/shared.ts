import { readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  describeWithReferenceData,
  hasReferenceData,
  itWithReferenceData,
  referencePath,
} from '../../../../test-support/reference-data';

/** `../shared/scorekeeping` (reference data, never copied into the repository); guard tests with `describeShared`/`itShared`. */
export const SHARED = referencePath('scorekeeping');
export const HAS_SHARED = hasReferenceData('scorekeeping');
export const describeShared = describeWithReferenceData('scorekeeping');
export const itShared = itWithReferenceData('scorekeeping');

/**
 * The canonical clembench texts and instances (`clemgame.json`, `resources/`, `in/`): `../shared/scorekeeping`, or a fetched
 * `clembench-privateshared` set (the same layout); guard tests with `describeCanonical`/`itCanonical`.
 */
const CANONICAL = ['scorekeeping/clemgame.json', 'scorekeeping/resources', 'scorekeeping/in'];
export const CANONICAL_DIR = dirname(referencePath('scorekeeping/resources'));
export const HAS_CANONICAL = hasReferenceData(...CANONICAL);
export const describeCanonical = describeWithReferenceData(...CANONICAL);
export const itCanonical = itWithReferenceData(...CANONICAL);

/** Every recorded episode directory (one holding interactions.json) below `../shared/scorekeeping/episodes`. */
export function recordedEpisodeDirs(root = join(SHARED, 'episodes')): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name === 'interactions.json') out.push(dirname(join(dir, e.name)));
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

/** The experiment of a recorded episode: its `<i>_<experiment>` directory. */
export function experimentOf(episodeDir: string): string {
  return dirname(episodeDir).split(/[\\/]/).pop()!.replace(/^\d+_/, '');
}
