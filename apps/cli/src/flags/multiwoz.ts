import type { RunFlags } from '../run-record';
/** Parsed flags of `dialeval multiwoz` (types only): declared by `commands/multiwoz.ts`, read by `actions/multiwoz.ts`. */

/** `--normalization` (commander's choices; default 2022). */
export type MultiwozNormalizationFlag = '2022' | '2023';

export interface MultiwozCommandOptions extends RunFlags {
  bleu?: boolean;
  success?: boolean;
  richness?: boolean;
  dst?: boolean;
  data?: string;
  normalization: MultiwozNormalizationFlag;
  format: 'table' | 'json';
  out?: string;
  references?: string;
  addSlotDomains?: boolean;
  strictDst?: boolean;
  ci?: boolean;
  samples: number;
  seed: number;
  confidence: number;
  perDialogue?: string;
  summary?: string;
}

export interface MultiwozCompareOptions {
  bleu?: boolean;
  success?: boolean;
  data?: string;
  normalization: MultiwozNormalizationFlag;
  format: 'table' | 'json';
  out?: string;
  addSlotDomains?: boolean;
  samples: number;
  seed: number;
  confidence: number;
}
