import type { RunFlags } from '../run-record';
/** Parsed flags of `dialeval cgt` (types only): declared by `commands/cgt.ts`, read by `actions/cgt.ts`. */

/** Choice flags carry the values `.choices()` allows (commander rejects others with exit 2 before the action runs). */
export interface CgtCommandOptions extends RunFlags {
  gold?: string | boolean;
  cgaVariant: 'originals' | 'new';
  mode: 'strict' | 'lenient';
  format: 'table' | 'json' | 'csv' | 'reference';
  out?: string;
  details?: boolean;
  invalidPrediction: 'error' | 'empty';
  emptyGroup: 'error' | 'skip';
  mean: 'exact' | 'naive';
  prf1: 'reference' | 'standard';
  bootstrap?: number;
  seed?: number;
  confidence?: number;
}
