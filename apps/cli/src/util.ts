import { EvalError, writeFileAtomic } from '@eval/core';

/** Wrong flags or arguments: exit code 2. */
export class UsageError extends EvalError {
  constructor(message: string) {
    super('usage_error', message);
    this.name = 'UsageError';
  }
}

/** Writes `text` to `--out FILE` atomically, or to stdout. */
export async function emit(text: string, out?: string): Promise<void> {
  const body = text.endsWith('\n') ? text : `${text}\n`;
  if (out) await writeFileAtomic(out, body);
  else process.stdout.write(body);
}
