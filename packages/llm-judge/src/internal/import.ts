import { join, resolve } from 'node:path';
import type { ChatOptions } from '@eval/core';
import { dialevalHome, InputError } from '@eval/core';
import { buildRequest, DiskCache, requestKey } from '@eval/llm';
import type { TemplateRole } from './methods';
import { readOutputEntries, verifyPrompts, type OutputEntry } from './recorded';
import {
  judgeMessages,
  REFERENCE_MODEL,
  REFERENCE_SYSTEM_MESSAGE,
  REFERENCE_TEMPERATURE,
  renderPrompt,
} from './render';
import type { PromptTemplate } from './templates';

export interface ImportRecordedOptions {
  /** Recorded output files (lists of `[align_data, gpt_output, gpt_input]`, e.g. the reference's `output.zip` contents). */
  files: readonly string[];
  /** Templates to verify the prompts against; each file's role is the template that reproduces its prompts. */
  templates: Partial<Record<TemplateRole, PromptTemplate>>;
  /** Force the role of every file instead of detecting it. */
  role?: TemplateRole;
  /** Model the answers are filed under (default the reference's `gpt-4-1106-preview`): run with the same `--model`. */
  model?: string;
  /**
   * Cache-key namespace the answers are filed under (run with the same `namespace`): two recorded runs whose prompts
   * coincide (e.g. the same method on two prediction files) then live in one cache without replacing each other.
   */
  namespace?: string;
  /** Cache directory (default `<dialevalHome()>/llm-cache`, as `@eval/llm`). */
  cacheDir?: string;
  systemMessage?: string;
  /** Per-call options of the run that should hit these entries (default `{ temperature: 0 }`, the reference's). */
  chat?: ChatOptions;
  /** Verify only; write nothing. */
  verifyOnly?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface ImportFileReport {
  file: string;
  role: TemplateRole;
  entries: number;
  /** Prompts re-rendered and found byte-identical. */
  verified: number;
  /** Skipped accuracy calls (empty prompt): nothing to cache. */
  placeholders: number;
  /** Entries whose call had failed (empty output): not cached. */
  failedCalls: number;
  /** Cache entries written (new). */
  written: number;
  /** Already cached with the same answer. */
  unchanged: number;
  /** Already cached with another answer, now replaced by the recorded one. */
  replaced: number;
}

export interface ImportResult {
  model: string;
  cacheDir: string;
  namespace?: string;
  files: ImportFileReport[];
}

function detectRole(
  file: string,
  entries: readonly OutputEntry[],
  templates: ImportRecordedOptions['templates'],
): TemplateRole {
  const probe = entries.find((e) => e.prompt !== '');
  const roles = Object.keys(templates) as TemplateRole[];
  if (!probe) {
    // a file of placeholders only: every predicted turn label was empty; only an accuracy file looks like that
    const acc = roles.filter((r) => r.endsWith('-accuracy'));
    if (acc.length === 1) return acc[0]!;
    throw new InputError(
      'every entry is a skipped accuracy call (empty prompt), so the method cannot be told; pass the role explicitly',
      { file },
    );
  }
  let best: { role: TemplateRole; offset: number } | undefined;
  for (const role of roles) {
    const rendered = renderPrompt(templates[role]!, probe.record);
    if (rendered === probe.prompt) return role;
    let offset = 0;
    while (offset < rendered.length && rendered[offset] === probe.prompt[offset]) offset++;
    if (!best || offset > best.offset) best = { role, offset };
  }
  throw new InputError(
    `no template reproduces the recorded prompt of ${probe.record.flag}${best ? ` (closest: ${best.role}, first difference at character ${best.offset})` : ''}; check the template directory`,
    { file, record: probe.index },
  );
}

/**
 * Imports recorded judge outputs into the `@eval/llm` answer cache, so that a run of the same method, records and
 * model re-aggregates them without any LLM call (`cache: 'replay'` makes sure of it). Every recorded prompt is
 * first re-rendered from its record and must match byte for byte; nothing is written unless all files verify.
 */
export async function importRecordedOutputs(options: ImportRecordedOptions): Promise<ImportResult> {
  const model = options.model ?? REFERENCE_MODEL;
  const cacheDir = resolve(options.cacheDir ?? join(dialevalHome(options.env), 'llm-cache'));
  const systemMessage = options.systemMessage ?? REFERENCE_SYSTEM_MESSAGE;
  const chat: ChatOptions = options.chat ?? { temperature: REFERENCE_TEMPERATURE };
  const loaded: Array<{ file: string; entries: OutputEntry[]; role: TemplateRole }> = [];
  for (const file of options.files) {
    const entries = await readOutputEntries(file);
    const role = options.role ?? detectRole(file, entries, options.templates);
    const template = options.templates[role];
    if (!template) throw new InputError(`no ${role} template loaded`, { file });
    const check = verifyPrompts(entries, template);
    if (check.mismatches.length > 0) {
      const m = check.mismatches[0]!;
      throw new InputError(
        `${check.mismatches.length} recorded prompt(s) differ from the ${role} template rendering; first: ${m.flag} at character ${m.offset}: recorded ${JSON.stringify(m.expected)} vs rendered ${JSON.stringify(m.actual)}`,
        { file, record: m.index },
      );
    }
    loaded.push({ file, entries, role });
  }
  const cache = new DiskCache(cacheDir);
  const reports: ImportFileReport[] = [];
  for (const { file, entries, role } of loaded) {
    const report: ImportFileReport = {
      file,
      role,
      entries: entries.length,
      verified: 0,
      placeholders: 0,
      failedCalls: 0,
      written: 0,
      unchanged: 0,
      replaced: 0,
    };
    for (const e of entries) {
      if (e.prompt === '') {
        report.placeholders++;
        continue;
      }
      report.verified++;
      if (e.output === '') {
        report.failedCalls++;
        continue;
      }
      if (options.verifyOnly) continue;
      const req = buildRequest(judgeMessages(e.prompt, systemMessage), chat, { model });
      const key = requestKey(req, { namespace: options.namespace });
      const existing = await cache.get(key);
      if (existing?.text === e.output) {
        report.unchanged++;
        continue;
      }
      await cache.set(req, { text: e.output, finishReason: 'stop' }, 'live', key);
      if (existing) report.replaced++;
      else report.written++;
    }
    reports.push(report);
  }
  return { model, cacheDir, ...(options.namespace ? { namespace: options.namespace } : {}), files: reports };
}
