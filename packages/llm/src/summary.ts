import { renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { PacingReport } from './internal/pacer';
import type { Llm, RunSummary } from './types';
import { formatCost } from './progress';

const int = (n: number) => Math.round(n).toLocaleString('en-US');

export interface FormatSummaryOptions {
  /** How to resume (e.g. "run the same command again"): printed when jobs failed or were not run. */
  resume?: string;
  /** Failed jobs listed with their reasons (default 5; the rest are counted). */
  listFailures?: number;
  /** Above this many runs, one line of totals replaces the line per run (default 5). */
  maxRunLines?: number;
}

/**
 * The run summary as one block of text for stderr: jobs done / failed / skipped / not run, calls made / cached /
 * retried / failed, tokens, cost, why the run stopped, the first failed jobs with their reasons, and how to resume.
 * Several summaries (several `runJobs` of one command) give one block with a line per run and summed totals.
 */
export function formatSummary(summaries: RunSummary | RunSummary[], options: FormatSummaryOptions = {}): string {
  const list = Array.isArray(summaries) ? summaries : [summaries];
  const lines: string[] = ['LLM run summary'];
  if (list.length === 0) {
    lines.push('  no LLM run was started');
    return lines.join('\n');
  }
  const sum = (f: (s: RunSummary) => number) => list.reduce((a, s) => a + f(s), 0);
  if (list.length > (options.maxRunLines ?? 5)) {
    // Many runs (e.g. one per user): one line of totals.
    lines.push(
      `  ${list.length} runs: ${int(sum((s) => s.items))} item(s): ${int(sum((s) => s.done))} done, ${int(sum((s) => s.failed))} failed, ${int(sum((s) => s.skipped))} skipped (finished earlier), ${int(sum((s) => s.notRun))} not run`,
    );
  } else {
    for (const s of list) {
      const rep = s.repeats > 1 ? ` (${s.items / s.repeats} x ${s.repeats} repeats)` : '';
      lines.push(
        `  ${s.name}: ${int(s.items)} item(s)${rep}: ${int(s.done)} done, ${int(s.failed)} failed, ${int(s.skipped)} skipped (finished earlier), ${int(s.notRun)} not run`,
      );
    }
  }
  const batch = sum((s) => s.batchCalls);
  lines.push(
    `  calls: ${int(sum((s) => s.calls))} made${batch ? ` + ${int(batch)} by batch` : ''}, ${int(sum((s) => s.cacheHits))} cached, ${int(sum((s) => s.retries))} retried, ${int(sum((s) => s.failedCalls))} failed`,
  );
  lines.push(
    `  tokens: ${int(sum((s) => s.totalTokens))} (${int(sum((s) => s.promptTokens))} prompt, ${int(sum((s) => s.completionTokens))} completion, ${int(sum((s) => s.cachedTokens))} cached prompt)`,
  );
  const known = list.every((s) => s.costKnown);
  lines.push(`  cost: ${formatCost(sum((s) => s.cost))}${known ? '' : ' (incomplete: no price for the model)'}`);
  const pacing = pacingLine(list);
  if (pacing) lines.push(pacing);
  for (const s of list) {
    if (s.stopped === 'budget')
      lines.push(`  stopped: ${s.name} reached the budget (--max-cost); finished items are kept`);
    else if (s.stopped === 'aborted') lines.push(`  stopped: ${s.name} was interrupted; finished items are kept`);
    else if (s.stopped === 'deadline')
      lines.push(`  stopped: ${s.name} reached the run deadline (--deadline); finished items are kept`);
    else if (s.stopped === 'config')
      lines.push(`  stopped: ${s.name}: ${s.configError?.message ?? 'configuration error'}`);
    else if (s.stopped === 'filesystem')
      lines.push(`  stopped: ${s.name}: a file could not be written (see the error)`);
    if (s.journalDropped)
      lines.push(`  journal: ${s.journalDropped} line(s) of ${s.name} failed their checksum and were run again`);
  }
  const failures = list.flatMap((s) => s.failures.map((f) => ({ run: s.name, ...f })));
  const shown = options.listFailures ?? 5;
  for (const f of failures.slice(0, shown))
    lines.push(`  failed: ${list.length > 1 ? `${f.run} ` : ''}${f.key}: ${f.error}`);
  if (failures.length > shown) lines.push(`  ... and ${failures.length - shown} more failed item(s)`);
  const incomplete = sum((s) => s.failed + s.notRun) > 0 || list.some((s) => s.stopped);
  lines.push(
    incomplete
      ? `  INCOMPLETE: ${options.resume ?? 'run the same command again to retry the failed items and run the rest'}`
      : '  complete: every item was evaluated',
  );
  return lines.join('\n');
}

const SOURCES: Record<PacingReport['source'], string> = {
  stated: 'as stated (--rpm/--tpm)',
  headers: "from the endpoint's rate-limit headers",
  'stated+headers': "as stated, and from the endpoint's rate-limit headers",
  probed: 'probed: the endpoint sent 429s without rate-limit headers',
  none: '',
};

/** What pacing learned (the last run's limits: the runtime's pacer is shared), the 429s and the time waited. */
function pacingLine(list: RunSummary[]): string | undefined {
  const last = [...list].reverse().find((s) => s.pacing)?.pacing;
  if (!last) return undefined;
  const limited = last.rateLimited;
  const requests = list.reduce((a, s) => a + s.calls + s.retries + s.failedCalls, 0);
  const limits = [
    last.rpm !== undefined ? `${int(last.rpm)} requests/min` : '',
    last.tpm !== undefined ? `${int(last.tpm)} tokens/min` : '',
    last.probedRpm !== undefined ? `~${int(last.probedRpm)} requests/min` : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (!limits && limited === 0) return undefined;
  const share = requests > 0 ? ` (${((100 * limited) / requests).toFixed(1)}% of requests)` : '';
  return `  rate limits: ${limits ? `${limits} (${SOURCES[last.source]})` : 'none learned'}; ${int(limited)} answered 429${share}; ${(last.waitedMs / 1000).toFixed(1)} s waited for the quota`;
}

export interface CatchInterruptsOptions {
  /** Where messages go (default stderr). */
  log?: (text: string) => void;
  /** On a second Ctrl-C the summary so far is also written here (synchronously) before the process exits. */
  summaryFile?: string;
  /** Exit code of a forced exit (second Ctrl-C; default 130). */
  exitCode?: number;
  /** Passed to {@link formatSummary}. */
  resume?: string;
}

/**
 * Ctrl-C handling for a command that runs jobs: the first SIGINT (or SIGTERM) calls `llm.interrupt()` (no new item
 * starts, calls in flight are aborted, each `runJobs` resolves with `stopped: 'aborted'` and writes its summary, so
 * the command ends normally and prints it); a second one prints the summary so far, writes it to `summaryFile`,
 * and exits at once. Returns the function that removes the handlers.
 */
export function catchInterrupts(llm: Llm, options: CatchInterruptsOptions = {}): () => void {
  const log = options.log ?? ((text: string) => void process.stderr.write(`${text}\n`));
  let count = 0;
  const handler = (signal: NodeJS.Signals) => {
    count++;
    if (count === 1) {
      log(
        `${signal}: stopping; calls in flight are abandoned, finished items are kept (press Ctrl-C again to quit at once)`,
      );
      llm.interrupt(signal);
      return;
    }
    const summaries = llm.summaries();
    log(formatSummary(summaries, { resume: options.resume }));
    if (options.summaryFile) {
      try {
        const tmp = join(
          dirname(options.summaryFile),
          `.${basename(options.summaryFile)}.${process.pid}.${Date.now()}.tmp`,
        );
        writeFileSync(tmp, `${JSON.stringify(summaries.length === 1 ? summaries[0] : summaries, null, 2)}\n`);
        renameSync(tmp, options.summaryFile);
      } catch (error) {
        log(`cannot write ${options.summaryFile}: ${(error as Error).message}`);
      }
    }
    process.exit(options.exitCode ?? 130);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
