import type { ResourceSet } from '../types';

/** Tomiinek/MultiWOZ_Evaluation (mwzeval): v2022 = 7f19ee0 (published numbers), v2023 = cd3f0ee (latest master). */
const MWZEVAL = 'Tomiinek/MultiWOZ_Evaluation';
const MWZEVAL_V2023 = 'cd3f0ee3a936a2d1c8567f440a0b71b215d7f991';
const MWZEVAL_V2022 = '7f19ee01ffd97652bfad5b067fce40704d9c9de2';
/** budzianowski/multiwoz at the commit whose MultiWOZ 2.2 blob ids are pinned below. */
const MULTIWOZ = 'budzianowski/multiwoz';
const MULTIWOZ_COMMIT = 'fe0c8e65cfcd8462bd33c86e35f21addc84ca82b';
/** thu-coai/ConvLab-2: the MultiWOZ 2.1 test set (zipped), source of the test goals. */
const CONVLAB2 = 'thu-coai/ConvLab-2';
const CONVLAB2_COMMIT = 'b014b81fcb1ff74f54681917eee39c14c87af3e5';

/**
 * Data of the MultiWOZ evaluator (`@eval/multiwoz`), installed in mwzeval's own `mwzeval/data/` layout:
 * - `database/*_db.json` and `booked_domains.json`: mwzeval's copies at v2023 (= v2022, except the restaurant database,
 *   whose v2022 version is `database/restaurant_db.v2022.json`); sha256 computed from byte-identical copies.
 * - `sources/MultiWOZ_2.2/{dialog_acts.json,test/dialogues_00{1,2}.json}`: MultiWOZ 2.2 test dialogues and dialogue
 *   acts. No copy of these (5-60 MB) could be obtained when the set was declared, so their sha256 is unknown: they are
 *   pinned by the git blob ids that budzianowski/multiwoz lists for them at the pinned commit, and verified against
 *   those (the manifest then records their sha256).
 * - `sources/convlab2_multiwoz21_test.json.zip`: MultiWOZ 2.1 test set (ConvLab-2's copy), for the goals.
 * The `multiwoz` prepare step (`@eval/multiwoz` `prepareMultiwozResource`) then writes `references/mwz22.json`,
 * `gold_states.json` (+ `gold_states.v2023.json`) as mwzeval's loader generates them, and `goals.json` (test
 * dialogues) by the reconstruction rule of the spec.
 */
export const multiwozResourceSet: ResourceSet = {
  name: 'multiwoz',
  description:
    'MultiWOZ evaluation data in mwzeval layout: venue database, booked domains, MultiWOZ 2.2 test dialogues + acts (pinned by git blob id: sha256 unknown), MultiWOZ 2.1 test goals; references, gold states and goals generated on install',
  repo: MWZEVAL,
  commit: MWZEVAL_V2023,
  license:
    'MIT (mwzeval: Copyright (c) 2023 Tomáš Nekvinda; MultiWOZ data and database: Copyright (c) 2019 Paweł Budzianowski); ConvLab-2 repository Apache-2.0, its MultiWOZ 2.1 data MIT',
  envVar: 'DIALEVAL_MULTIWOZ_DIR',
  usedBy: ['@eval/multiwoz'],
  prepare: 'multiwoz',
  files: [
    {
      path: 'database/attraction_db.json',
      source: 'mwzeval/data/database/attraction_db.json',
      sha256: 'ac2486936c373917fd9ed1aa46d0e63f7dc6fae4667c80e62b643ac6051e9848',
      bytes: 35731,
    },
    {
      path: 'database/hotel_db.json',
      source: 'mwzeval/data/database/hotel_db.json',
      sha256: '7f7d0fa564f6735b6a168a3ab72c7ca6f1180c49fa8a285bd9ebf7dac10e5e45',
      bytes: 18241,
    },
    {
      path: 'database/restaurant_db.json',
      source: 'mwzeval/data/database/restaurant_db.json',
      sha256: '686285544a450a603af539ad0e521b33e390b7e991f540078f93fdd7133e730f',
      bytes: 56487,
    },
    {
      path: 'database/restaurant_db.v2022.json',
      source: 'mwzeval/data/database/restaurant_db.json',
      repo: MWZEVAL,
      commit: MWZEVAL_V2022,
      sha256: '7864b4e36027af0907d6afe9ed962fecd6c6966cd626b8ae9341708a04ea201a',
      bytes: 56391,
    },
    {
      path: 'database/train_db.json',
      source: 'mwzeval/data/database/train_db.json',
      sha256: '4818e735bae20690f6d0d06bb2ae8eec1981c0b680258a970dc01c9073f3fec9',
      bytes: 748675,
    },
    {
      path: 'booked_domains.json',
      source: 'mwzeval/data/booked_domains.json',
      sha256: 'ba53d71927a84e1db4d6a3113c45bbfacba3b30c748d5ecbbbbbf5f3ab545ab1',
      bytes: 1358883,
    },
    {
      path: 'sources/MultiWOZ_2.2/dialog_acts.json',
      source: 'data/MultiWOZ_2.2/dialog_acts.json',
      repo: MULTIWOZ,
      commit: MULTIWOZ_COMMIT,
      gitBlobSha1: '8975b7888b7279387876ac8bce37825f5782ce40',
    },
    {
      path: 'sources/MultiWOZ_2.2/test/dialogues_001.json',
      source: 'data/MultiWOZ_2.2/test/dialogues_001.json',
      repo: MULTIWOZ,
      commit: MULTIWOZ_COMMIT,
      gitBlobSha1: 'fd420005cc9dc259892f541b001d9d48608bd38d',
    },
    {
      path: 'sources/MultiWOZ_2.2/test/dialogues_002.json',
      source: 'data/MultiWOZ_2.2/test/dialogues_002.json',
      repo: MULTIWOZ,
      commit: MULTIWOZ_COMMIT,
      gitBlobSha1: '8ce97bc17acc3d1105d92d8d936520b8c93892ba',
    },
    {
      path: 'sources/convlab2_multiwoz21_test.json.zip',
      source: 'data/multiwoz/test.json.zip',
      repo: CONVLAB2,
      commit: CONVLAB2_COMMIT,
      sha256: '438deb6ff5402cef5ff29cc0d5a10db818c1e9142727c1d631e71b563c66a5b4',
      bytes: 1533565,
    },
  ],
};
