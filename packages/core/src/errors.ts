import type { z } from 'zod';

const MARKER = Symbol.for('@eval/core.error');

/** Where in an input a problem sits: the file, the record (line, index or key) and the field path. */
export interface InputLocation {
  /** File path (or a label such as `<stdin>`). */
  file?: string;
  /** Record within the file: a 1-based line number for JSONL/CSV, an array index, or an object key. */
  record?: string | number;
  /** Field path inside the record, e.g. `['turns', 3, 'response']`. */
  field?: ReadonlyArray<string | number>;
}

/**
 * Base error of every `@eval/*` package. `code` is stable and machine-readable;
 * `EvalError.isInstance(e)` works across duplicated package copies (marker symbol, as in vercel/ai).
 */
export class EvalError extends Error {
  readonly [MARKER] = true;
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EvalError';
    this.code = code;
  }

  static isInstance(error: unknown): error is EvalError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Formats a field path the way users read it: `turns[3].response`. */
export function formatFieldPath(path: ReadonlyArray<PropertyKey> | undefined): string {
  if (!path || path.length === 0) return '';
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'symbol') out += `[${part.toString()}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

export interface InputIssue {
  /** Field path inside the record. */
  path: Array<string | number>;
  message: string;
}

function describeLocation(loc: InputLocation): string {
  const parts: string[] = [];
  if (loc.file) parts.push(loc.file);
  if (loc.record !== undefined) {
    parts.push(typeof loc.record === 'number' ? `record ${loc.record}` : `record ${JSON.stringify(loc.record)}`);
  }
  const field = formatFieldPath(loc.field);
  if (field) parts.push(`field ${field}`);
  return parts.join(', ');
}

/**
 * Bad input: names the file, the record and the field. Build one directly, or from zod issues
 * with {@link InputError.fromZod}.
 */
export class InputError extends EvalError {
  readonly file?: string;
  readonly record?: string | number;
  readonly field?: ReadonlyArray<string | number>;
  readonly issues: InputIssue[];

  constructor(message: string, location: InputLocation & { issues?: InputIssue[]; cause?: unknown; code?: string } = {}) {
    const where = describeLocation(location);
    super(location.code ?? 'input_error', where ? `${where}: ${message}` : message, { cause: location.cause });
    this.name = 'InputError';
    this.file = location.file;
    this.record = location.record;
    this.field = location.field;
    this.issues = location.issues ?? [];
  }

  /** Wraps a zod error: every issue keeps its path; the message lists them (at most 10). */
  static fromZod(error: z.ZodError, location: Omit<InputLocation, 'field'> & { field?: ReadonlyArray<string | number> } = {}): InputError {
    const prefix = location.field ?? [];
    const issues: InputIssue[] = error.issues.map((issue) => ({
      path: [...prefix, ...issue.path.map((p) => (typeof p === 'symbol' ? p.toString() : p))],
      message: issue.message,
    }));
    const shown = issues.slice(0, 10).map((i) => {
      const f = formatFieldPath(i.path);
      return f ? `${f}: ${i.message}` : i.message;
    });
    if (issues.length > 10) shown.push(`... and ${issues.length - 10} more`);
    const first = issues[0];
    const loc: InputLocation = { file: location.file, record: location.record, field: issues.length === 1 && first ? first.path : undefined };
    const msg = issues.length === 1 ? (first?.message ?? 'invalid input') : `invalid input (${issues.length} issues): ${shown.join('; ')}`;
    return new InputError(msg, { ...loc, issues });
  }
}

/** A named resource set (reference data, method texts) is not available locally. */
export class ResourceMissingError extends EvalError {
  readonly resource: string;
  constructor(resource: string, message: string) {
    super('resource_missing', message);
    this.name = 'ResourceMissingError';
    this.resource = resource;
  }
}

/** Downloaded bytes do not match the pinned checksum. */
export class ChecksumError extends EvalError {
  constructor(message: string) {
    super('checksum_mismatch', message);
    this.name = 'ChecksumError';
  }
}
