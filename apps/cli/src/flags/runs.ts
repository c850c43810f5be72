/** Parsed flags of `dialeval runs` (types only): declared by `commands/runs.ts`, read by `actions/runs.ts`. */
export interface RunsCommandOptions {
  benchmark?: string;
  sort?: string;
  ascending?: boolean;
  /** `.choices()` in the command: one of these, defaulting to table. */
  format: 'table' | 'json' | 'csv' | 'markdown' | 'html';
  out?: string;
}
