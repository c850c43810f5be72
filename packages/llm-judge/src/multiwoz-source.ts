import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, parseJson } from '@eval/core';
import { dialoguesFromMultiwoz21, type SourceDialogue } from './convert';

export interface MultiwozSourceOptions {
  /** The `multiwoz` resource directory (default: resolved by `@eval/multiwoz`: `--data`, `DIALEVAL_MULTIWOZ_DIR`, fetched cache). */
  dir?: string;
  /** Only these dialogues (ids match case-insensitively, with or without `.json`). */
  ids?: Iterable<string>;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** CLI flag named in "missing" messages. */
  flag?: string;
}

/**
 * Dialogue text and MultiWOZ 2.1 ground truth from the `multiwoz` data resource of `@eval/multiwoz` (its MultiWOZ 2.1
 * test set, `sources/convlab2_multiwoz21_test.json.zip`), for judging DST predictions given in the `@eval/multiwoz`
 * input format. Fetch it with `dialeval resources fetch multiwoz`.
 */
export async function loadMultiwozDialogues(options: MultiwozSourceOptions = {}): Promise<SourceDialogue[]> {
  const { resolveMultiwozDataDir, SOURCE_FILES, readZip } = await import('@eval/multiwoz');
  const dir = await resolveMultiwozDataDir({
    dir: options.dir,
    required: [SOURCE_FILES.multiwoz21TestZip],
    flag: options.flag,
    env: options.env,
    home: options.home,
  });
  const file = join(dir, SOURCE_FILES.multiwoz21TestZip);
  const entries = readZip(await readFile(file), file);
  const json = [...entries.entries()].find(([name]) => name.endsWith('.json'));
  if (!json) throw new InputError('no .json entry in the archive', { file });
  const data = parseJson(json[1].toString('utf8'), `${file} (${json[0]})`);
  return dialoguesFromMultiwoz21(data, { file, ids: options.ids });
}
