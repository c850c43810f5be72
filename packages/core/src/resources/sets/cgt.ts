import type { ResourceSet } from '../types';

const originals: Array<[string, string]> = [
  ['01', 'dfe88d4f0748210ca8240a03e576788e74bce61226389b26834dd3f558762850'],
  ['02', '18b185370bdecf1d45ebc929d1c30144e0979ac223cc9037e2e0823f02f85d07'],
  ['03', 'f1871375e9ad0c278726d85dd41877cd0b99aac5131d51f03159f98c36c9ada8'],
  ['04', 'c04104b250380bdfecea8a51de8b7a6a583ef60936876cdfb1d8a88d5e02a27a'],
  ['05', '7e469d918e76d9cc9de4a5b3ca2bf7a9efcee13133eca99fb27d787546139c9a'],
  ['06', '09768ad9d7728d2fd6fbdc2637635ae3e84aa629ebb2d1f0a107ed2e0d400ccf'],
  ['07', 'f6447645324ffb9ad28e3b45ef87212934bf6c03205ea718d4547e4205d42d95'],
  ['08', '170327dd9a85e38ba2f816d3bca00705e4322b49b42f61f453a351aa2f7759f8'],
  ['09', '42943d4aaa190e1b6f457f5939439f33c3d8cce170281526a6be1071b8bd8f4b'],
  ['10', '1602f87b823bef5e18fa4021f141a455ebcb0e15e0b67388e12877a8569efa66'],
];

const autoAccept: Array<[string, string]> = [
  ['01', 'a5f7f5889bf99f41d5a780d9bc98ddbd38b2736e563119f72c6efd67d000e5a5'],
  ['02', 'f689dada977dcc58fbfbcae0823c680bd593db0c3d8cce62312d5e9de4f59a02'],
  ['03', 'c4e45d01bcdcdabc475f42fc956b598092077af1c8bccfd453628b843cec101a'],
  ['04', '1a7bf2d3ad371b88edff15942e77b412b1ef3a93537e3fcfc74fdfd414525609'],
  ['05', '9ff9db784a9cff745524c0819041311afd222487069cdcd710f6621d17d1613a'],
  ['06', '2d95667f44a9f15c281dfdc33fb1d9f6ce7db7d2f8d290f4686b461fa7f2a236'],
  ['07', '943474a42be2c79e28ffd5f012ec47b8707eae4192ebce37f958bf9a224f2bbf'],
  ['08', 'f9299895c987d3347c86745f828198dd72d423adeb5a094ddeec897164bbc936'],
  ['09', '0d5f9a70bf0ac6bfba1659c477fd2725fc30e1244a6bf1b004a059cad9d85e12'],
  ['10', '545515e144ad27dae51dd67e0bd05b49c0653edabfff80a791475b81d76ceb36'],
];

/** Common-ground annotations (CGA CSVs) of the Weights Task Dataset, as used by brandeis-llc/mmdp-cgt. */
export const cgtResourceSet: ResourceSet = {
  name: 'cgt',
  description:
    'Weights Task Dataset common-ground annotations (CGA CSVs, groups 1-10): originals and the auto-accept variant',
  repo: 'brandeis-llc/mmdp-cgt',
  commit: 'd29394eecdfd97be16ce02cda0c0e230d92709cc',
  license: 'MIT (Copyright (c) 2024 brandeis-llc)',
  envVar: 'DIALEVAL_CGT_DIR',
  usedBy: ['@eval/cgt'],
  files: [
    ...originals.map(([g, sha256]) => ({
      path: `cga_originals/Group_${g}_CGA.csv`,
      source: `source-data/cga_originals/Group_${g}_CGA.csv`,
      sha256,
    })),
    ...autoAccept.map(([g, sha256]) => ({
      path: `cga_new/Group_${g}_CGA.csv`,
      source: `source-data/cga_new/Group_${g}_CGA.csv`,
      sha256,
    })),
  ],
};
