import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, parseJson, readZip, resolveResourceDir } from '@eval/core';
import { dialoguesFromMultiwoz21, type SourceDialogue } from './convert';

/** Where the `multiwoz` resource set keeps the zipped MultiWOZ 2.1 test set (`packages/core/src/resources/sets/multiwoz.ts`). */
const MULTIWOZ21_TEST_ZIP = 'sources/convlab2_multiwoz21_test.json.zip';

export interface MultiwozSourceOptions {
  /** The `multiwoz` resource directory (default: `--data`, `DIALEVAL_MULTIWOZ_DIR`, fetched cache). */
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
  const dir = await resolveResourceDir('multiwoz', {
    dir: options.dir,
    required: [MULTIWOZ21_TEST_ZIP],
    flag: options.flag ?? '--data',
    env: options.env,
    home: options.home,
  });
  const file = join(dir, MULTIWOZ21_TEST_ZIP);
  const entries = readZip(await readFile(file), file);
  const json = [...entries.entries()].find(([name]) => name.endsWith('.json'));
  if (!json) throw new InputError('no .json entry in the archive', { file });
  const data = parseJson(json[1].toString('utf8'), `${file} (${json[0]})`);
  return dialoguesFromMultiwoz21(data, { file, ids: options.ids });
}
