import type { ResourceSet } from '../types';

/**
 * The six prompt templates of Gu & Yang (2024), "A Two-dimensional Zero-shot Dialogue State Tracking Evaluation
 * Method using GPT-4" (SLEEPWALKERG/LLM-DST-EVAL). The repository has no licence file, so the texts are never
 * shipped: `dialeval resources fetch llm-dst-eval` downloads them for local use. Installed names carry the method
 * role as prefix (`<role>__<repo file name>`), as `@eval/llm-judge` expects; it also reads a clone of the
 * repository (its `two-step/template/` and `single-step/template/` paths).
 */
export const llmDstEvalResourceSet: ResourceSet = {
  name: 'llm-dst-eval',
  description:
    'Prompt templates of the two-dimensional LLM DST evaluation (Gu & Yang 2024): Ours, Two-dimensional CoT, Direct, CoT',
  repo: 'SLEEPWALKERG/LLM-DST-EVAL',
  commit: '45eb519c888de4b8461b514d8b75e8f63b9280f7',
  license: 'none stated (no licence file: all rights reserved); fetched for local use only, never redistributed',
  envVar: 'DIALEVAL_LLM_DST_EVAL_DIR',
  usedBy: ['@eval/llm-judge'],
  files: [
    {
      path: 'ours_acc__template_manual_acc_onebyone.txt',
      source: 'two-step/template/template_manual_acc_onebyone.txt',
      sha256: '881c5d3c59de15815c46e631ca509a9c9cd14f9e232adc4a7ffce5ef92f08066',
      bytes: 1117,
    },
    {
      path: 'ours_comp__template_manual_comp_onebyone.txt',
      source: 'two-step/template/template_manual_comp_onebyone.txt',
      sha256: 'ea4d45714f8f45bcdaada64031c7349b7429d44539104368afbd23cf8bad245d',
      bytes: 3426,
    },
    {
      path: 'twodim_cot_acc__template_manual_acc.txt',
      source: 'two-step/template/template_manual_acc.txt',
      sha256: '77656f08d7738abd70f4f8b13b997b22b6af7c8ce8df8e5698a7b3f6c35e9b93',
      bytes: 855,
    },
    {
      path: 'twodim_cot_comp__template_manual_comp.txt',
      source: 'two-step/template/template_manual_comp.txt',
      sha256: 'f02dd6e40c2f2e8d5692c849a9c9a13d1ffa724ca299c2f3d141a237d99b9e0e',
      bytes: 2853,
    },
    {
      path: 'single_direct__template_manual.txt',
      source: 'single-step/template/template_manual.txt',
      sha256: '5aafabb94d0f2354e1bd3549a42c10828e349c71fbbcc80e0647ec5af589e12a',
      bytes: 3191,
    },
    {
      path: 'single_cot__template_manual_cot.txt',
      source: 'single-step/template/template_manual_cot.txt',
      sha256: 'd66edc65c95ea9803d3ce3eaed193709751beab37f94954859e52c4ef6bbc6c7',
      bytes: 3231,
    },
  ],
};
