// No package is loaded here (the CLI loads packages lazily): a configuration error carries its cause and fix, taken by
// @eval/llm from its one table (`LLM_CONFIG_ERRORS`): `LlmConfigError` (`cause`, `fix`) and the errors of calls that
// failed for a configuration reason (`config: { cause, fix }` on `LlmCallError` and `CacheMissError`).
import { EvalError } from '@eval/core';
import type { LlmConfigCause } from '@eval/llm';

/** A configuration problem that no retry fixes: the run stops with its cause and the fix, exit 2. */
export interface ConfigFailure {
  cause: LlmConfigCause;
  fix: string;
}

/** Recognises a configuration error (no key, 401/403/404, nothing listening, replay miss, no quota), else undefined. */
export function configFailure(error: unknown): ConfigFailure | undefined {
  if (!EvalError.isInstance(error)) return undefined;
  const e = error as EvalError & { cause?: unknown; fix?: unknown; config?: { cause?: unknown; fix?: unknown } };
  if (e.code === 'llm_config' || e.code === 'missing_api_key') {
    if (typeof e.fix === 'string' && typeof e.cause === 'string')
      return { cause: e.cause as LlmConfigCause, fix: e.fix };
  }
  if (e.config && typeof e.config.cause === 'string' && typeof e.config.fix === 'string')
    return { cause: e.config.cause as LlmConfigCause, fix: e.config.fix };
  return undefined;
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
