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
    await llm.close();
    if (summaries.length > 0 && !llm.dryRun) process.stderr.write(`${formatSummary(summaries, { resume })}\n`);
    if (summaryFile && summaries.length > 0) await writeJsonAtomic(summaryFile, summaries.length === 1 ? summaries[0] : summaries);
  }
}
