/** The LLM judging methods of the paper (Table 1): its own method and three baselines. */
export type JudgeMethod = 'ours' | 'twodim-cot' | 'direct' | 'cot';

/** A prompt template's role: which method and which question it serves. */
export type TemplateRole =
  | 'ours-accuracy'
  | 'ours-completeness'
  | 'twodim-cot-accuracy'
  | 'twodim-cot-completeness'
  | 'direct'
  | 'cot';

export interface TwoStepMethodInfo {
  kind: 'two-step';
  accuracy: TemplateRole;
  completeness: TemplateRole;
}

export interface SingleStepMethodInfo {
  kind: 'single-step';
  prompt: TemplateRole;
}

export type MethodInfo = (TwoStepMethodInfo | SingleStepMethodInfo) & {
  id: JudgeMethod;
  /** The paper's name. */
  title: string;
};

export const METHODS: Readonly<Record<JudgeMethod, MethodInfo>> = {
  ours: {
    id: 'ours',
    title: 'Ours (two-dimensional, manual reasoning paths)',
    kind: 'two-step',
    accuracy: 'ours-accuracy',
    completeness: 'ours-completeness',
  },
  'twodim-cot': {
    id: 'twodim-cot',
    title: 'Two-dimensional CoT',
    kind: 'two-step',
    accuracy: 'twodim-cot-accuracy',
    completeness: 'twodim-cot-completeness',
  },
  direct: { id: 'direct', title: 'Direct', kind: 'single-step', prompt: 'direct' },
  cot: { id: 'cot', title: 'CoT', kind: 'single-step', prompt: 'cot' },
};

export const JUDGE_METHODS = Object.keys(METHODS) as JudgeMethod[];

export function isJudgeMethod(name: string): name is JudgeMethod {
  return Object.hasOwn(METHODS, name);
}

/** Every template role a method needs. */
export function methodRoles(method: JudgeMethod): TemplateRole[] {
  const info = METHODS[method];
  return info.kind === 'two-step' ? [info.accuracy, info.completeness] : [info.prompt];
}
