import { readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `../shared/scorekeeping` (reference data, never copied into the repository). */
export const SHARED = fileURLToPath(new URL('../../../../../shared/scorekeeping', import.meta.url));

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
