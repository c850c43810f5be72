import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, ResourceMissingError, resolveResourceDir } from '@eval/core';
import type { TemplateRole } from './methods';
import { FormatError, parseFormatString } from './python';

/** Name of the resource set holding the reference's six templates (`dialeval resources fetch llm-dst-eval`). */
export const TEMPLATE_RESOURCE = 'llm-dst-eval';

/**
 * Where each role's template is found in a template directory: first the installed name of the resource set
 * (`<role prefix>__<repo file name>`, also the layout of the project's test fixtures), then the path inside a
 * clone of SLEEPWALKERG/LLM-DST-EVAL.
 */
export const TEMPLATE_FILES: Readonly<Record<TemplateRole, readonly string[]>> = {
  'ours-accuracy': ['ours_acc__template_manual_acc_onebyone.txt', 'two-step/template/template_manual_acc_onebyone.txt'],
  'ours-completeness': [
    'ours_comp__template_manual_comp_onebyone.txt',
    'two-step/template/template_manual_comp_onebyone.txt',
  ],
  'twodim-cot-accuracy': ['twodim_cot_acc__template_manual_acc.txt', 'two-step/template/template_manual_acc.txt'],
  'twodim-cot-completeness': [
    'twodim_cot_comp__template_manual_comp.txt',
    'two-step/template/template_manual_comp.txt',
  ],
  direct: ['single_direct__template_manual.txt', 'single-step/template/template_manual.txt'],
  cot: ['single_cot__template_manual_cot.txt', 'single-step/template/template_manual_cot.txt'],
};

/** A prompt template (Python `str.format` syntax: `{history}`, `{system}`, `{user}`, `{turn_label}`). */
export interface PromptTemplate {
  role: TemplateRole;
  text: string;
  /** Where it was read from (for messages), or a label for templates given in code. */
  source: string;
}

/** The fields a template may use. `last_state` is passed (as `{}`) but unused by the reference templates. */
export const TEMPLATE_FIELDS = ['history', 'system', 'user', 'turn_label', 'last_state'] as const;

/** Checks a template's syntax and field names up front, so a bad template fails before any LLM call. */
export function checkTemplate(template: PromptTemplate): void {
  try {
    for (const piece of parseFormatString(template.text)) {
      const name = piece.field?.name;
      if (name !== undefined && !(TEMPLATE_FIELDS as readonly string[]).includes(name)) {
        throw new FormatError(`unknown field {${name}} (known: ${TEMPLATE_FIELDS.join(', ')})`);
      }
    }
  } catch (error) {
    if (error instanceof FormatError) {
      throw new InputError(`not a valid str.format template for ${template.role}: ${error.message}`, {
        file: template.source,
      });
    }
    throw error;
  }
}

export interface LoadTemplatesOptions {
  /** Template directory (wins over the environment variable and the fetched resource). */
  dir?: string;
  /** Templates given as text, by role (win over files). */
  texts?: Partial<Record<TemplateRole, string>>;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** CLI flag named in "missing" messages. */
  flag?: string;
}

/**
 * Loads the templates of the given roles (`'all'`: every role): from `texts`, else from the template directory (option,
 * `DIALEVAL_LLM_DST_EVAL_DIR`, or the fetched `llm-dst-eval` resource). Files are read byte-exact (no
 * newline added or stripped). Throws a `ResourceMissingError` telling how to fetch them.
 */
export async function loadTemplates(
  which: readonly TemplateRole[] | 'all',
  options: LoadTemplatesOptions = {},
): Promise<Record<TemplateRole, PromptTemplate>> {
  const roles = which === 'all' ? (Object.keys(TEMPLATE_FILES) as TemplateRole[]) : which;
  const out = {} as Record<TemplateRole, PromptTemplate>;
  const needFiles = roles.filter((r) => options.texts?.[r] === undefined);
  const dir =
    needFiles.length > 0
      ? await resolveResourceDir(TEMPLATE_RESOURCE, {
          dir: options.dir,
          env: options.env,
          home: options.home,
          flag: options.flag ?? '--templates',
        })
      : undefined;
  for (const role of roles) {
    const text = options.texts?.[role];
    let template: PromptTemplate;
    if (text !== undefined) template = { role, text, source: `<${role} template given in code>` };
    else {
      const candidates = TEMPLATE_FILES[role].map((f) => join(dir!, f));
      const file = candidates.find((f) => existsSync(f));
      if (!file) {
        throw new ResourceMissingError(
          TEMPLATE_RESOURCE,
          `template for ${role} not found in ${dir} (looked for ${TEMPLATE_FILES[role].join(' or ')}); run \`dialeval resources fetch ${TEMPLATE_RESOURCE}\` or pass ${options.flag ?? '--templates'} DIR`,
        );
      }
      template = { role, text: await readFile(file, 'utf8'), source: file };
    }
    checkTemplate(template);
    out[role] = template;
  }
  return out;
}
