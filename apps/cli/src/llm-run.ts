// Types only at load time: @eval/llm is imported when a run starts (the CLI loads packages lazily).
import { writeJsonAtomic } from '@eval/core';
import type { Llm, LlmOptions, RunSummary } from '@eval/llm';

/**
 * Creates the LLM runtime of one command and runs `body` with it; always ends with the run summary on stderr (items
 * done, failed, skipped; calls made, cached, retried, failed; tokens; cost) and, with `--llm-summary FILE`, the same
 * as JSON (one run: its summary; several, e.g. one per memory user: the list). Ctrl-C stops the run cleanly (finished
 * items kept, the summary printed and written); a second Ctrl-C prints and writes it and exits at once.
 */
export async function withLlm<T>(options: LlmOptions, resume: string, body: (llm: Llm) => Promise<T>): Promise<T> {
  const { catchInterrupts, createLlm, formatSummary } = await import('@eval/llm');
  const summaryFile = options.summaryFile;
  // the CLI writes the summary of the whole command itself (a command may make several runs)
  const llm = createLlm({ ...options, summaryFile: undefined });
  const release = catchInterrupts(llm, { summaryFile, resume });
  let summaries: RunSummary[] = [];
  try {
    return await body(llm);
  } finally {
    release();
    summaries = llm.summaries();
    const usage = llm.usage();
    await llm.close();
    if (summaries.length > 0) {
      if (!llm.dryRun) process.stderr.write(`${formatSummary(summaries, { resume })}\n`);
      if (summaryFile) await writeJsonAtomic(summaryFile, summaries.length === 1 ? summaries[0] : summaries);
    } else if (usage.calls + usage.cacheHits + usage.failedCalls > 0) {
      // calls made through llm.model directly (no runJobs): the usage totals
      const cost = usage.costKnown ? `$${usage.cost.toFixed(4)}` : 'unknown (no price for the model)';
      process.stderr.write(
        `LLM usage\n  calls: ${usage.calls} made, ${usage.cacheHits} cached, ${usage.retries} retried, ${usage.failedCalls} failed\n  tokens: ${usage.totalTokens} (${usage.promptTokens} prompt, ${usage.completionTokens} completion)\n  cost: ${cost}\n`,
      );
      if (summaryFile) await writeJsonAtomic(summaryFile, usage);
    }
  }
}
