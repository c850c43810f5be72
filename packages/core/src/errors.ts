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

  constructor(
    message: string,
    location: InputLocation & { issues?: InputIssue[]; cause?: unknown; code?: string } = {},
  ) {
    const where = describeLocation(location);
    super(location.code ?? 'input_error', where ? `${where}: ${message}` : message, { cause: location.cause });
    this.name = 'InputError';
    this.file = location.file;
    this.record = location.record;
    this.field = location.field;
    this.issues = location.issues ?? [];
  }

  /** Wraps a zod error: every issue keeps its path; the message lists them (at most 10). */
  static fromZod(
    error: z.ZodError,
    location: Omit<InputLocation, 'field'> & { field?: ReadonlyArray<string | number> } = {},
  ): InputError {
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
    const loc: InputLocation = {
      file: location.file,
      record: location.record,
      field: issues.length === 1 && first ? first.path : undefined,
    };
    const msg =
      issues.length === 1
        ? (first?.message ?? 'invalid input')
        : `invalid input (${issues.length} issues): ${shown.join('; ')}`;
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

const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a component of the path is not a directory',
  EISDIR: 'is a directory, expected a file',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EEXIST: 'already exists and is not a directory',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
  ENOENT: 'no such file or directory',
};

/**
 * A filesystem operation failed (EACCES, ENOTDIR, ENOSPC, EISDIR...): names the path and the reason, never a stack
 * trace. Code `fs_error`; the CLI maps it to exit 2. Build one with {@link FileSystemError.from}.
 */
export class FileSystemError extends EvalError {
  /** The path the operation was about. */
  readonly path: string;
  /** The system error code, e.g. `EACCES`. */
  readonly errno?: string;

  constructor(path: string, message: string, options: { errno?: string; cause?: unknown } = {}) {
    super('fs_error', message, { cause: options.cause });
    this.name = 'FileSystemError';
    this.path = path;
    this.errno = options.errno;
  }

  /** True for a Node.js system error of a filesystem operation (it has an errno `code` such as `EACCES`). */
  static isSystemError(error: unknown): error is NodeJS.ErrnoException {
    return (
      error instanceof Error &&
      typeof (error as NodeJS.ErrnoException).code === 'string' &&
      /^E[A-Z]+$/.test((error as NodeJS.ErrnoException).code!)
    );
  }

  /**
   * Turns a Node.js filesystem error into a `FileSystemError` naming `path` (default: the error's own path), e.g.
   * `cannot write out/results.json: permission denied (EACCES)`. An `EvalError` is returned unchanged; anything
   * else that is not a system error is returned unchanged too.
   */
  static from(error: unknown, path?: string, action = 'cannot write'): unknown {
    if (EvalError.isInstance(error) || !FileSystemError.isSystemError(error)) return error;
    const errno = error.code!;
    const where = path ?? error.path ?? '?';
    const reason = FS_REASONS[errno] ?? error.message.replace(/^[A-Z]+: /, '');
    // A rename names its source in `path` and the target in `dest`: the target is the path that matters.
    const dest = (error as NodeJS.ErrnoException & { dest?: string }).dest;
    const other = error.path && path && error.path !== path && dest !== path ? ` (${error.path})` : '';
    return new FileSystemError(where, `${action} ${where}${other}: ${reason} (${errno})`, { errno, cause: error });
  }
}
