/** Parsed flags of `dialeval report` (types only): declared by `commands/report.ts`, read by `actions/report.ts`. */
export interface ReportCommandOptions {
  out?: string;
  title?: string;
  resamples?: string;
  seed?: string;
  allPairs?: boolean;
  force?: boolean;
}
