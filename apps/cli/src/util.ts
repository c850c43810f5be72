import { EvalError, writeFileAtomic } from '@eval/core';

const USAGE_MARKER = Symbol.for('@eval/cli.usage-error');

/** Wrong flags or arguments: category `input`, exit code 2. */
export class UsageError extends EvalError {
  readonly [USAGE_MARKER] = true;
  constructor(message: string) {
    super('usage_error', message, { category: 'input' });
    this.name = 'UsageError';
  }

  static override isInstance(error: unknown): error is UsageError {
    return EvalError.hasMarker(error, USAGE_MARKER);
  }
}

/** Writes `text` to `--out FILE` atomically, or to stdout. */
export async function emit(text: string, out?: string): Promise<void> {
  const body = text.endsWith('\n') ? text : `${text}\n`;
  if (out) await writeFileAtomic(out, body);
  else process.stdout.write(body);
}
