import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CgtSetting, readSettingDir } from '../data';
import { type SettingResult, evaluateSetting } from '../evaluate';
import {
  describeWithReferenceData,
  hasReferenceData,
  itWithReferenceData,
  referencePath,
} from '../../../../test-support/reference-data';

/** Reference data of the project (never copied into the repo): ../shared/cgt; guard tests that read it. */
export const CGT = referencePath('cgt');
/** The CGA annotations (also in the `cgt` resource set). */
export const CGA_ORIGINALS = referencePath('cgt/cga_originals');
export const CGA_NEW = referencePath('cgt/cga_new');
/** Whether ../shared/cgt is there; `describeCgt`/`itCgt` skip (marked) when it is not. */
export const HAS_CGT = hasReferenceData('cgt');
export const describeCgt = describeWithReferenceData('cgt');
export const itCgt = itWithReferenceData('cgt');
export const PREDICTIONS = join(CGT, 'predictions');

/** The settings of expected.json, in its order. */
export const SETTINGS = ['dp-gpt4o', 'text-gpt3.5', 'vision-4o-mini', 'text-mm-gpt3.5', 'dp-gpt3.5'] as const;

export interface ExpectedGroup {
  n_rows: number;
  gold: Array<Record<string, string>>;
  pred_normalized: Array<Record<string, string>>;
  prf1_rows: Array<{ row: number; p: number; r: number; f1: number }>;
  dsc_strict_rows: number[];
  dsc_lenient_rows: number[];
  mean_p: number;
  mean_r: number;
  mean_f1: number;
  final_prf1: [number, number, number];
  mean_dsc_strict: number;
  mean_dsc_lenient: number;
  final_dsc_strict: number;
  final_dsc_lenient: number;
}

export interface ExpectedSetting {
  groups: Record<string, ExpectedGroup>;
  group_mean_dsc_strict: number[];
  group_mean_f1: number[];
  macro_mean_dsc_strict: number;
  macro_mean_f1: number;
  printed_dsc_line: string;
  printed_f1_line: string;
  printed_dsc_latex: string;
}

export interface Expected {
  reference: string;
  settings: Record<string, ExpectedSetting>;
}

export const expectedText = (): string => readFileSync(join(CGT, 'expected.json'), 'utf8');
export const expected = (): Expected => JSON.parse(expectedText());

/** Reads and evaluates every shared setting (default options) into the given maps, keyed by setting name. */
export async function loadSettings(
  settings: Map<string, CgtSetting>,
  results: Map<string, SettingResult>,
): Promise<void> {
  for (const name of SETTINGS) {
    const s = await readSettingDir(join(PREDICTIONS, name));
    settings.set(name, s);
    results.set(name, evaluateSetting(s));
  }
}
