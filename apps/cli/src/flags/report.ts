/** Parsed flags of `dialeval report` (types only): declared by `commands/report.ts`, read by `actions/report.ts`. */
export interface ReportCommandOptions {
  out?: string;
  title?: string;
  resamples: number;
  seed: number;
  allPairs?: boolean;
  force?: boolean;
  fallbackItemMeans?: boolean;
}
