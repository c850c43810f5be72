/** Parsed flags of `dialeval cgt` (types only): declared by `commands/cgt.ts`, read by `actions/cgt.ts`. */

export interface CgtCommandOptions {
  gold?: string | boolean;
  cgaVariant?: string;
  mode?: string;
  format?: string;
  out?: string;
  details?: boolean;
  invalidPrediction?: string;
  emptyGroup?: string;
  mean?: string;
  prf1?: string;
  bootstrap?: string;
  seed?: string;
  confidence?: string;
}
