import type { z } from 'zod';

/**
 * What kind of failure an error is; the category, not the message, decides what a program does with it (the CLI's
 * exit code: `input` and `configuration` and `filesystem` 2, `evaluation` and `internal` 1).
 *
 * - `input`: a file, record or field the user gave is wrong (bad JSON, a missing file, an unknown metric, a wrong flag);
 * - `configuration`: the environment is not set up (no API key, a key the endpoint refuses, a resource set not fetched);
 * - `filesystem`: a file could not be read or written (permissions, no space, a path through a file);
 * - `evaluation`: the evaluation itself could not be completed (failed model calls, a stopped run, a failed download);
 * - `internal`: a bug (a caller broke a contract of the API).
 */
export type ErrorCategory = 'input' | 'configuration' | 'filesystem' | 'evaluation' | 'internal';

/**
 * Every error code of the `@eval/*` packages and its category. A new code is added here (or its error is given an
 * explicit `category`); a code not listed is `internal`.
 */
export const ERROR_CODES = {
  // input
  usage_error: 'input',
  input_error: 'input',
  invalid_json: 'input',
  invalid_csv: 'input',
  invalid_utf8: 'input',
  file_not_found: 'input',
  unknown_resource: 'input',
  input_common_ground: 'input',
  input_damaged_run: 'input',
  input_duplicate_id: 'input',
  input_empty_group: 'input',
  input_invalid_prediction: 'input',
  input_mismatch: 'input',
  input_no_descriptor: 'input',
  input_no_pairs: 'input',
  input_not_a_run: 'input',
  input_overlapping_values: 'input',
  input_schema_version: 'input',
  input_settings_mismatch: 'input',
  input_too_few_runs: 'input',
  input_unfinished_run: 'input',
  input_unknown_metric: 'input',
  // configuration
  resource_missing: 'configuration',
  llm_config: 'configuration',
  missing_api_key: 'configuration',
  cache_miss: 'configuration',
  // filesystem
  fs_error: 'filesystem',
  // evaluation
  llm_call_failed: 'evaluation',
  budget_exceeded: 'evaluation',
  request_deferred: 'evaluation',
  interrupted: 'evaluation',
  aborted: 'evaluation',
  closed: 'evaluation',
  episode_errored: 'evaluation',
  judge_incomplete: 'evaluation',
  judge_unusable: 'evaluation',
  run_incomplete: 'evaluation',
  partial_result: 'evaluation',
  player_error: 'evaluation',
  script_exhausted: 'evaluation',
  unparseable_output: 'evaluation',
  template_error: 'evaluation',
  system_error: 'evaluation',
  invalid_request: 'evaluation',
  download_failed: 'evaluation',
  checksum_mismatch: 'evaluation',
  invalid_resource: 'evaluation',
  empty_data: 'evaluation',
  invalid_data: 'evaluation',
  zero_division: 'evaluation',
  python_value_error: 'evaluation',
  // internal
  internal: 'internal',
  run_finished: 'internal',
  duplicate_item: 'internal',
  invalid_run: 'internal',
} as const satisfies Record<string, ErrorCategory>;

/** A known error code (see {@link ERROR_CODES}); other strings are accepted with an explicit category. */
export type ErrorCode = keyof typeof ERROR_CODES;

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
 * Base error of every `@eval/*` package. `code` is stable and machine-readable, `category` says what kind of failure
 * it is ({@link ErrorCategory}: by default the code's, from {@link ERROR_CODES}). `EvalError.isInstance(e)` (and each
 * subclass's own `isInstance`) works across duplicated package copies: a `Symbol.for` marker, as in vercel/ai.
 */
export class EvalError extends Error {
  readonly [MARKER] = true;
  readonly code: string;
  readonly category: ErrorCategory;

  constructor(
    code: ErrorCode | (string & {}),
    message: string,
    options?: { cause?: unknown; category?: ErrorCategory },
  ) {
    super(message, options);
    this.name = 'EvalError';
    this.code = code;
    this.category = options?.category ?? (ERROR_CODES as Record<string, ErrorCategory>)[code] ?? 'internal';
  }

  static isInstance(error: unknown): error is EvalError {
    return EvalError.hasMarker(error, MARKER);
  }

  /** Whether `error` carries `marker` (a subclass's own `Symbol.for` marker). */
  protected static hasMarker(error: unknown, marker: symbol): boolean {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}

/**
 * The category of any thrown value: an {@link EvalError}'s own, `filesystem` for a Node.js system error of a file
 * operation (EACCES, ENOSPC, ... with the path it was about), else `internal`.
 */
export function errorCategory(error: unknown): ErrorCategory {
  if (EvalError.isInstance(error)) return error.category;
  if (FileSystemError.isSystemError(error) && typeof error.path === 'string') return 'filesystem';
  return 'internal';
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
const INPUT_MARKER = Symbol.for('@eval/core.input-error');

export class InputError extends EvalError {
  readonly [INPUT_MARKER] = true;
  readonly file?: string;
  readonly record?: string | number;
  readonly field?: ReadonlyArray<string | number>;
  readonly issues: InputIssue[];

  constructor(
    message: string,
    location: InputLocation & { issues?: InputIssue[]; cause?: unknown; code?: string } = {},
  ) {
    const where = describeLocation(location);
    super(location.code ?? 'input_error', where ? `${where}: ${message}` : message, {
      cause: location.cause,
      category: 'input',
    });
    this.name = 'InputError';
    this.file = location.file;
    this.record = location.record;
    this.field = location.field;
    this.issues = location.issues ?? [];
  }

  static override isInstance(error: unknown): error is InputError {
    return EvalError.hasMarker(error, INPUT_MARKER);
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
const RESOURCE_MARKER = Symbol.for('@eval/core.resource-missing-error');

export class ResourceMissingError extends EvalError {
  readonly [RESOURCE_MARKER] = true;
  readonly resource: string;
  constructor(resource: string, message: string) {
    super('resource_missing', message);
    this.name = 'ResourceMissingError';
    this.resource = resource;
  }

  static override isInstance(error: unknown): error is ResourceMissingError {
    return EvalError.hasMarker(error, RESOURCE_MARKER);
  }
}

/** Downloaded bytes do not match the pinned checksum. */
const CHECKSUM_MARKER = Symbol.for('@eval/core.checksum-error');

export class ChecksumError extends EvalError {
  readonly [CHECKSUM_MARKER] = true;
  constructor(message: string) {
    super('checksum_mismatch', message);
    this.name = 'ChecksumError';
  }

  static override isInstance(error: unknown): error is ChecksumError {
    return EvalError.hasMarker(error, CHECKSUM_MARKER);
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
 * trace. Code `fs_error`, category `filesystem`. Build one with {@link FileSystemError.from}.
 */
const FS_MARKER = Symbol.for('@eval/core.file-system-error');

export class FileSystemError extends EvalError {
  readonly [FS_MARKER] = true;
  /** The path the operation was about. */
  readonly path: string;
  /** The system error code, e.g. `EACCES`. */
  readonly errno?: string;

  constructor(path: string, message: string, options: { errno?: string; cause?: unknown } = {}) {
    super('fs_error', message, { cause: options.cause, category: 'filesystem' });
    this.name = 'FileSystemError';
    this.path = path;
    this.errno = options.errno;
  }

  static override isInstance(error: unknown): error is FileSystemError {
    return EvalError.hasMarker(error, FS_MARKER);
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
