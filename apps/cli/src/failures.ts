// No package is loaded here: errors are recognised by their `code`, `status` and message (duck typing), so that the
// CLI's error path works for every subcommand without importing @eval/llm.
import { EvalError } from '@eval/core';

/** A configuration problem that no retry fixes: the run stops with its cause and the fix, exit 2. */
export interface ConfigFailure {
  cause:
    | 'missing-key'
    | 'unauthorized'
    | 'forbidden'
    | 'model-not-found'
    | 'connection-refused'
    | 'dns'
    | 'replay-miss';
  fix: string;
}

const FIXES: Record<ConfigFailure['cause'], string> = {
  'missing-key':
    'export the key in the variable named by --api-key-env (default OPENAI_API_KEY), or name another variable with --api-key-env',
  unauthorized:
    'the endpoint rejected the API key (HTTP 401): check the variable named by --api-key-env and that the key belongs to the endpoint of --base-url',
  forbidden:
    'the endpoint refused access (HTTP 403): the key has no access to this model or endpoint; check --model, --base-url and the key in --api-key-env',
  'model-not-found': 'the endpoint does not know the model (HTTP 404): check --model, and that --base-url ends in /v1',
  'connection-refused':
    'nothing answers at the endpoint: check --base-url (or $OPENAI_BASE_URL) and that the server is running',
  dns: 'the endpoint host name does not resolve: check --base-url (or $OPENAI_BASE_URL)',
  'replay-miss':
    'with --cache replay every request must already be in the cache: run once with --cache use (and --cache-dir pointing at the recorded cache)',
};

/** Recognises a configuration error (missing key, 401/403/404, refused connection, DNS, replay miss), else undefined. */
export function configFailure(error: unknown): ConfigFailure | undefined {
  if (!EvalError.isInstance(error)) return undefined;
  const e = error as EvalError & { cause?: unknown; fix?: unknown; status?: number; errno?: unknown };
  // @eval/llm's typed configuration error carries its own cause and fix.
  if (typeof e.fix === 'string' && typeof e.cause === 'string' && e.cause in FIXES)
    return { cause: e.cause as ConfigFailure['cause'], fix: e.fix };
  if (e.code === 'missing_api_key') return { cause: 'missing-key', fix: FIXES['missing-key'] };
  if (e.code === 'cache_miss') return { cause: 'replay-miss', fix: FIXES['replay-miss'] };
  if (e.code !== 'llm_call_failed') return undefined;
  const cause = configCauseOfMessage(typeof e.errno === 'string' ? `${e.message} ${e.errno}` : e.message, e.status);
  return cause ? { cause, fix: FIXES[cause] } : undefined;
}

/** The configuration cause of a call failure message (as `runJobs` records it), if it is one. */
export function configCauseOfMessage(message: string, status?: number): ConfigFailure['cause'] | undefined {
  const s = status ?? Number(/^HTTP (\d{3})\b/.exec(message)?.[1] ?? NaN);
  if (s === 401) return 'unauthorized';
  if (s === 403) return 'forbidden';
  if (s === 404) return 'model-not-found';
  if (/ECONNREFUSED/.test(message)) return 'connection-refused';
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return 'dns';
  if (/^no API key: /.test(message)) return 'missing-key';
  if (/^cache miss in replay mode/.test(message)) return 'replay-miss';
  return undefined;
}

/** The fix text of a configuration cause. */
export function fixFor(cause: ConfigFailure['cause']): string {
  return FIXES[cause];
}

const FS_CODES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'is a directory (a file was expected)',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
  EEXIST: 'already exists',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
};

/** A filesystem error (EACCES, ENOTDIR, ENOSPC, EISDIR, ...) described with its path, else undefined. */
export function filesystemFailure(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; e && depth < 4; depth++) {
    const x = e as { code?: unknown; path?: unknown; dest?: unknown; syscall?: unknown };
    if (typeof x.code === 'string' && x.code in FS_CODES && typeof x.path === 'string') {
      const what = FS_CODES[x.code]!;
      return `cannot ${x.syscall ? `${String(x.syscall)} ` : 'use '}${x.path}: ${what} (${x.code})`;
    }
    if (x.code === 'ERR_STRING_TOO_LONG' || (e instanceof RangeError && /Invalid string length/.test(e.message))) {
      return 'the output is too large to build in memory (Invalid string length): ask for less (fewer instances, episodes or users)';
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
