import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import type { z } from 'zod';
import { FileSystemError, InputError, type InputLocation } from './errors';
import { PythonJsonError, parsePythonJson } from './python/json';
import { Utf8Validator } from './utf8';

/** How the readers treat bytes that are not valid UTF-8. */
export interface ReadOptions {
  /**
   * Replace invalid UTF-8 with U+FFFD instead of failing (default false: an {@link InputError} naming the file and
   * the byte offset, as Python's `json.load` fails). Replacements are reported to `onInvalidUtf8`.
   */
  allowInvalidUtf8?: boolean;
  /** Called once per file that had invalid sequences (only with `allowInvalidUtf8`). */
  onInvalidUtf8?: (info: InvalidUtf8Report) => void;
  /**
   * Called by the whole-file readers (`readText`, `readJson`, `readCsv`; not the streaming `readJsonl`) with the
   * file's bytes as read, before gzip decompression: a run record hashes them (`FileDigests`) instead of reading the
   * file a second time. The bytes must not be modified.
   */
  onRead?: (file: string, bytes: Uint8Array) => void;
}

export interface InvalidUtf8Report {
  file: string;
  /** Invalid sequences replaced by U+FFFD. */
  replaced: number;
  /** Byte offset of the first one (in the decompressed content for gzip files). */
  firstOffset: number;
}

function invalidUtf8Error(file: string, offset: number, compressed: boolean): InputError {
  return new InputError(
    `invalid UTF-8 at byte offset ${offset}${compressed ? ' of the decompressed content' : ''} (pass --allow-invalid-utf8 to replace invalid bytes with U+FFFD)`,
    { file, code: 'invalid_utf8' },
  );
}

/** Checks `buf` as UTF-8: throws naming the byte offset, or (allowed) reports the replacements. */
function checkUtf8(buf: Uint8Array, file: string, compressed: boolean, options: ReadOptions | undefined): void {
  const v = new Utf8Validator();
  v.push(buf);
  v.end();
  if (v.invalid === 0) return;
  if (!options?.allowInvalidUtf8) throw invalidUtf8Error(file, v.firstInvalidOffset, compressed);
  options.onInvalidUtf8?.({ file, replaced: v.invalid, firstOffset: v.firstInvalidOffset });
}

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

function isGzip(buf: Uint8Array): boolean {
  return buf.length >= 2 && buf[0] === GZIP_MAGIC_0 && buf[1] === GZIP_MAGIC_1;
}

function notFound(file: string, error: unknown): never {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') throw new InputError('file not found', { file, code: 'file_not_found', cause: error });
  if (code === 'EISDIR')
    throw new InputError('is a directory, expected a file', { file, code: 'input_error', cause: error });
  throw new InputError(`cannot read file (${code ?? String(error)})`, { file, cause: error });
}

/**
 * Reads a text file as UTF-8; gzip-compressed files (by magic bytes) are decompressed transparently. Invalid UTF-8
 * is an {@link InputError} naming the file and byte offset unless `options.allowInvalidUtf8`.
 */
export async function readText(file: string, options?: ReadOptions): Promise<string> {
  let buf: Buffer;
  try {
    buf = await readFile(file);
  } catch (error) {
    notFound(file, error);
  }
  options?.onRead?.(file, buf);
  const compressed = isGzip(buf);
  if (compressed) buf = gunzipSync(buf);
  checkUtf8(buf, file, compressed, options);
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}

/** Validates `value` against `schema`; zod issues become an {@link InputError} naming file, record and field. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  location: { file?: string; record?: string | number; field?: Array<string | number> } = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw InputError.fromZod(result.error, location);
}

function found(text: string, at: number): string {
  if (at >= text.length) return 'the end of the input';
  const cp = text.codePointAt(at)!;
  return JSON.stringify(String.fromCodePoint(cp));
}

/** What the parser expected where it stopped, in words (from Python's `JSONDecodeError.msg`). */
function expectation(error: PythonJsonError, text: string): string {
  const at = error.position;
  switch (error.msg) {
    case 'Expecting value':
      return `expected a value, found ${found(text, at)}`;
    case "Expecting ',' delimiter":
      return `expected ',' or a closing bracket, found ${found(text, at)}`;
    case "Expecting ':' delimiter":
      return `expected ':' after the property name, found ${found(text, at)}`;
    case 'Expecting property name enclosed in double quotes':
      return `expected a property name in double quotes, found ${found(text, at)}`;
    case 'Extra data':
      return `expected the end of the input after the JSON value, found ${found(text, at)}`;
    case 'Unterminated string starting at':
      return "expected a closing '\"' for the string starting here";
    case 'Invalid control character at':
      return 'expected an escape (e.g. \\n) instead of a raw control character in a string';
    case 'Invalid \\escape':
      return 'expected a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)';
    case 'Invalid \\uXXXX escape':
      return 'expected four hex digits after \\u';
    default:
      return error.msg;
  }
}

/**
 * The one syntax-error message of every JSON reader: an {@link InputError} (code `invalid_json`) naming the file
 * (and the JSONL line as `record`), then `invalid JSON at line L column C: expected ..., found ...`. `error` comes
 * from `parsePythonJson` on `text`; `lineOffset` is added to its line for text cut from a larger file.
 */
export function jsonSyntaxError(
  error: PythonJsonError,
  text: string,
  location: InputLocation & { lineOffset?: number } = {},
): InputError {
  const { lineOffset = 0, ...where } = location;
  return new InputError(
    `invalid JSON at line ${error.lineno + lineOffset} column ${error.colno}: ${expectation(error, text)}`,
    {
      ...where,
      code: 'invalid_json',
      cause: error,
    },
  );
}

/** Re-parses text that `JSON.parse` rejected with the locating parser, for {@link jsonSyntaxError}. */
function strictJsonError(
  text: string,
  jsError: unknown,
  location: InputLocation & { lineOffset?: number },
): InputError {
  try {
    parsePythonJson(text, { ints: 'number', objects: 'object', bom: 'skip', nonFinite: 'reject' });
  } catch (error) {
    if (error instanceof PythonJsonError) return jsonSyntaxError(error, text, location);
    throw error;
  }
  const { lineOffset: _, ...where } = location;
  return new InputError(`invalid JSON (${(jsError as Error).message})`, {
    ...where,
    code: 'invalid_json',
    cause: jsError,
  });
}

/**
 * Parses JSON text; a syntax error becomes an {@link InputError} naming the file, line and column and what was
 * expected ({@link jsonSyntaxError}). `record` is set for one line of a JSONL file.
 */
export function parseJson(
  text: string,
  file?: string,
  location: { record?: string | number; lineOffset?: number } = {},
): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw strictJsonError(text, error, { file, ...location });
  }
}

/** Reads a JSON file (optionally gzip), optionally validated against a zod schema. */
export async function readJson<S extends z.ZodType = z.ZodUnknown>(
  file: string,
  schema?: S,
  options?: ReadOptions,
): Promise<z.output<S>> {
  const value = parseJson(await readText(file, options), file);
  return schema ? validate(schema, value, { file }) : (value as z.output<S>);
}

export interface JsonlRecord<T> {
  /** 1-based line number in the file. */
  line: number;
  value: T;
}

/**
 * Streams a JSONL file (optionally gzip) record by record in bounded memory.
 * Blank lines are skipped; errors name the file and the line.
 */
export async function* readJsonl<S extends z.ZodType = z.ZodUnknown>(
  file: string,
  schema?: S,
  options?: ReadOptions,
): AsyncGenerator<JsonlRecord<z.output<S>>> {
  let head: Buffer;
  try {
    const fh = await open(file, 'r');
    try {
      head = Buffer.alloc(2);
      await fh.read(head, 0, 2, 0);
    } finally {
      await fh.close();
    }
  } catch (error) {
    notFound(file, error);
  }
  const raw = createReadStream(file);
  const compressed = isGzip(head);
  const decoded = compressed ? raw.pipe(createGunzip()) : raw;
  // Bytes are checked as UTF-8 on their way to the line reader (which would replace invalid ones silently).
  const validator = new Utf8Validator();
  const input = decoded.pipe(
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        validator.push(chunk);
        if (validator.invalid > 0 && !options?.allowInvalidUtf8)
          return done(invalidUtf8Error(file, validator.firstInvalidOffset, compressed));
        done(null, chunk);
      },
      flush(done) {
        validator.end();
        if (validator.invalid > 0 && !options?.allowInvalidUtf8)
          return done(invalidUtf8Error(file, validator.firstInvalidOffset, compressed));
        done();
      },
    }),
  );
  decoded.on('error', (error: Error) => input.destroy(error));
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      const trimmed = line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      if (trimmed.trim() === '') continue;
      const value = parseJson(trimmed, file, { record: line, lineOffset: line - 1 });
      yield { line, value: schema ? validate(schema, value, { file, record: line }) : (value as z.output<S>) };
    }
    if (validator.invalid > 0)
      options?.onInvalidUtf8?.({ file, replaced: validator.invalid, firstOffset: validator.firstInvalidOffset });
  } finally {
    lines.close();
    raw.destroy();
  }
}

/** Reads a whole JSONL file into an array (see {@link readJsonl} for streaming). */
export async function readJsonlAll<S extends z.ZodType = z.ZodUnknown>(
  file: string,
  schema?: S,
  options?: ReadOptions,
): Promise<Array<z.output<S>>> {
  const out: Array<z.output<S>> = [];
  for await (const rec of readJsonl(file, schema, options)) out.push(rec.value);
  return out;
}

/**
 * Parses CSV text (RFC 4180: quoted fields, doubled quotes, CRLF or LF, newlines inside quotes).
 * Returns rows of raw string cells, header row included.
 */
export function parseCsv(text: string, options: { file?: string; delimiter?: string } = {}): string[][] {
  const delim = options.delimiter ?? ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let inQuotes = false;
  let i = 0;
  let line = 1;
  let quoteLine = 0;
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        inQuotes = false;
        i++;
        continue;
      }
      if (c === '\n') line++;
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') {
      inQuotes = true;
      quoteLine = line;
      i++;
      continue;
    }
    if (c === delim) {
      row.push(field);
      field = '';
      i++;
      continue;
    }
    if (c === '\r' && text[i + 1] === '\n') {
      i++;
      continue;
    }
    if (c === '\n' || c === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      line++;
      i++;
      continue;
    }
    field += c;
    i++;
  }
  if (inQuotes)
    throw new InputError('unterminated quoted CSV field', {
      file: options.file,
      record: quoteLine,
      code: 'invalid_csv',
    });
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Reads a CSV file into objects keyed by the header row. Records are numbered by line (header = line 1). */
export async function readCsv(
  file: string,
  options: { delimiter?: string } & ReadOptions = {},
): Promise<Array<Record<string, string>>> {
  const rows = parseCsv(await readText(file, options), { file, delimiter: options.delimiter });
  const header = rows[0];
  if (!header) return [];
  return rows.slice(1).map((cells) => {
    const rec: Record<string, string> = {};
    header.forEach((h, j) => {
      rec[h] = cells[j] ?? '';
    });
    return rec;
  });
}

let tmpCounter = 0;

/** A temporary file beside `file`, named as {@link removeStaleTempFiles} recognises it (internal). */
export function tempPathFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.${tmpCounter++}.tmp`);
}

/** `.<name>.<pid>.<time>[.<n>].tmp`: the temporary files {@link writeFileAtomic} creates. */
const TMP_NAME = /^\..+\.(\d+)\.(\d{10,})(?:\.\d+)?\.tmp$/;
/** Directories this process has already swept for stale temporary files. */
const swept = new Set<string>();

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes temporary files of {@link writeFileAtomic} left in `dir` by processes that no longer run (killed during a
 * write); files of live processes are left alone. Returns the names removed. Runs by itself on the first atomic write
 * of a process into a directory.
 */
export async function removeStaleTempFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of staleTempFiles(names)) {
    try {
      await rm(join(dir, name), { force: true });
      removed.push(name);
    } catch {
      // another process removed it, or we may not: not our business here
    }
  }
  return removed;
}

function staleTempFiles(names: string[]): string[] {
  return names.filter((name) => {
    const m = TMP_NAME.exec(name);
    return m !== null && !processAlive(Number(m[1]));
  });
}

/**
 * Writes a file atomically: the data goes to a temporary file in the same directory, is fsync'd,
 * then renamed over the target. Readers never see a half-written file. Filesystem failures (EACCES, ENOTDIR,
 * ENOSPC, EISDIR...) become a {@link FileSystemError} naming the path. The first write of a process into a
 * directory removes temporary files left there by processes that died mid-write.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(file);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw FileSystemError.from(error, dir, 'cannot create directory');
  }
  if (!swept.has(dir)) {
    swept.add(dir);
    await removeStaleTempFiles(dir);
  }
  const tmp = tempPathFor(file);
  let fh;
  try {
    fh = await open(tmp, 'w');
  } catch (error) {
    throw FileSystemError.from(error, file);
  }
  try {
    await fh.writeFile(data);
    await fh.sync();
  } catch (error) {
    await fh.close().catch(() => {});
    await rm(tmp, { force: true });
    throw FileSystemError.from(error, file);
  }
  await fh.close();
  try {
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw FileSystemError.from(error, file);
  }
}

/** Serialises JSON with 2-space indentation and a trailing newline and writes it atomically. */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}
