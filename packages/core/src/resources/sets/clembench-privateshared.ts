import type { ResourceSet } from '../types';

// [path inside privateshared/, sha256, bytes] of the pinned commit (checked against byte-identical copies).
const files: Array<[string, string, number]> = [
  ['clemgame.json', '98fa5299a5d323d6d7a58fee592f3f75e9f75bb8113d4b830b8910bdcbd40e8d', 299],
  ['resources/en_words.json', '49392414c8b8bc8a58aa2399534a808c6784fd89bad07cb80b2fd285d4d30a53', 536],
  [
    'resources/initial_prompts/job-interview_1.template',
    'fc51e1a17f8275c6d0bfa7743f3e8d76fafac95f0165e87f412be1d7ceb7c91d',
    422,
  ],
  [
    'resources/initial_prompts/letter-number_1.template',
    '91a4f79a945c11bed46452225a69c078c30c149fbe04ffc97d79224cdfc1f141',
    411,
  ],
  [
    'resources/initial_prompts/restaurant_1.template',
    '4854e6f25804fd36ed4546c25ffd991726602a88fd81a82c27d4fa1abb793bb5',
    428,
  ],
  [
    'resources/initial_prompts/things-places_1.template',
    '78cc7667ccfa2b63880dd1cd5b152ad1a37df4c4a8961af63756dc6f10af695a',
    406,
  ],
  [
    'resources/initial_prompts/travel-booking_1.template',
    'dd452814ea972a4eedadba56e9573d234b745bbc7de6b31382a0703d0222ada9',
    461,
  ],
  [
    'resources/texts/job-interview/probing_questions.json',
    'c67e2ad989dfc2de1898fa08a9dfb8862a4db33532ae4e1878b549097552e3b3',
    2178,
  ],
  [
    'resources/texts/job-interview/requests.json',
    'a9c9450927b5e57c32e17eb594905ab96e689bb40cc5c74a689210832e6dcef2',
    1303,
  ],
  [
    'resources/texts/job-interview/slot_values.json',
    'f9fd80691e4c2f86719a98d75934ee880c7e7ee3b615f3aed89216990a86e835',
    1148,
  ],
  [
    'resources/texts/letter-number/probing_questions.json',
    '4baf1aeb48fddeb29034b7bf136362bc66557df312a5d1911b722307b9f26ba2',
    792,
  ],
  [
    'resources/texts/letter-number/requests.json',
    'e2a2d0fe6586e9f5e0b05437487e02d8c47af47208f6d0c62307460ebc882df4',
    462,
  ],
  [
    'resources/texts/letter-number/slot_values.json',
    '4d4e46c6ecb59fe48f1b503a2f47ccf8b1734644633d1ce4807e52157408e66f',
    1612,
  ],
  ['resources/texts/reprompts.json', '4d32d056d75aba361322838354500621919b4fe8580dfa363b8e2e3298e0635c', 209],
  [
    'resources/texts/restaurant/probing_questions.json',
    '06ff5587f9a0c3ae1f1d1c9e52eeb7f78bff3b32c51b6725eb57474821369aa2',
    1762,
  ],
  [
    'resources/texts/restaurant/requests.json',
    '3ab44ad329f94693e44c161539c2c353ec42ff6412a03c3d67a86118c32a0dfe',
    1165,
  ],
  [
    'resources/texts/restaurant/slot_values.json',
    '34a27a4edc8f6ddb55f2580d80ad605d35eee5783ede1ae07b2b9766ec1ba4be',
    1032,
  ],
  [
    'resources/texts/things-places/probing_questions.json',
    '1d47a20dcb44207fe3d7c603422378a0bece93e8b389510a30d266a211ab1901',
    1195,
  ],
  [
    'resources/texts/things-places/requests.json',
    '85341e1693f4dcec72fff815631e740a1d1e3b9c558f0c9b6f9de034430a7f9c',
    820,
  ],
  [
    'resources/texts/things-places/slot_values.json',
    'bce88a785b113adc6b4d01b34d11e034ec98954cb95d9edce91ab5956de06436',
    3166,
  ],
  [
    'resources/texts/travel-booking/probing_questions.json',
    '17897c22021820e0658b97ce7268a6446148ee733e2aa2a620e5ad72f14e0280',
    3264,
  ],
  [
    'resources/texts/travel-booking/requests.json',
    '64476acc0d0153200d237983d272b9a54ecf933ccbe435e74a8e0f3102af5085',
    1240,
  ],
  [
    'resources/texts/travel-booking/slot_values.json',
    'ec00094af6ec6b3732be7ac72c76b090ff7a52f4d5ef1810a0e48e1d2b79c3a7',
    985,
  ],
  ['in/instances.json', 'c473c369b5fee1d5ef156af8beedaba63a516e540fd5533e16d041f69a8cb79c', 110770],
  ['in/instances_v0.9.json', '2697a7465d39a06ead6631f009abba482930589314601de73b36a188c087df85', 29202],
  ['in/instances_v0.9extended.json', '0ff934c56b519943641e5350724f3741a8e7cc3a57884efd146720097cc4d4f9', 42828],
  ['in/instances_v1.0.json', 'e3faa80eeaf344c4818b70a0cb6b7262afaf040aa61d1e8870df5af4242bbc76', 110190],
  ['in/instances_v1.6.json', 'ec21af55e6d8b51ca963ad6f43e58bd49d4b3febd44283ac5541c7e5d7df404b', 205596],
];

/**
 * The canonical texts and instances of clembench's private/shared (scorekeeping) game: prompt templates, requests,
 * probing questions, slot values, reprompts, keywords and the instance files, at the commit of the v2.0-era game.
 * Laid out as in the game directory (`resources/…`, `in/…`); read by @eval/scorekeeping (`--resources`).
 */
export const clembenchPrivatesharedResourceSet: ResourceSet = {
  name: 'clembench-privateshared',
  description:
    'clembench private/shared (scorekeeping) game texts and instances (resources/, in/instances*.json, clemgame.json)',
  repo: 'clp-research/clembench',
  commit: 'a717f23808f4865631ffde81c37b60c7da3f5ec3',
  license: 'MIT (Copyright (c) 2023 clp-research); game author Brielen Madureira',
  envVar: 'DIALEVAL_CLEMBENCH_PRIVATESHARED_DIR',
  usedBy: ['@eval/scorekeeping'],
  files: files.map(([path, sha256, bytes]) => ({ path, source: `privateshared/${path}`, sha256, bytes })),
};
