/**
 * A V8 code cache for the CommonJS modules the CLI loads, like Python's `__pycache__`: the first run of a command keeps
 * the compiled code of every module it ran, and later runs start from it instead of parsing and compiling the sources
 * again (several ms of every run of a short command such as `dialeval multiwoz`). Node >= 22.1 has this built in
 * (`module.enableCompileCache`), and it is used there; on node 20 the CommonJS loader's `Module.prototype._compile` is
 * wrapped. Off with `DIALEVAL_COMPILE_CACHE=0`. Never fatal: a cache that cannot be read, written or is rejected is
 * ignored, and the module is compiled as usual.
 *
 * Safety: a cached entry is used only for the same file path, size and modification time (in its file name), on the
 * same node version and architecture and V8 settings (in its directory name); V8 itself checks its version, flags and
 * the source length, and rejects anything else. Modules using `import()` are left to node (it needs node's own loader
 * callback), as are sources other than `.js`/`.cjs`; with a policy manifest (`--experimental-policy`) nothing is cached.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';

type CompileFunction = (this: Module, content: string, filename: string) => unknown;

/** Hits and misses of this process (for tests and `DIALEVAL_COMPILE_CACHE=debug`). */
export interface CompileCacheStats {
  dir: string;
  hits: number;
  misses: number;
}

/**
 * The cache directory: `<dialeval home>/v8-compile-cache/<node>-<arch>-<tag>`, the home as `@eval/core`'s
 * `dialevalHome` finds it (`$DIALEVAL_HOME`, `$XDG_CACHE_HOME/dialeval`, the platform's cache directory); this module
 * runs before `@eval/core` is loaded, so it reads the same variables itself.
 */
export function compileCacheDir(tag: string, env: NodeJS.ProcessEnv = process.env): string {
  let home: string;
  if (env.DIALEVAL_HOME) home = resolve(env.DIALEVAL_HOME);
  else if (env.XDG_CACHE_HOME) home = join(env.XDG_CACHE_HOME, 'dialeval');
  else if (process.platform === 'darwin') home = join(homedir(), 'Library', 'Caches', 'dialeval');
  else if (process.platform === 'win32' && env.LOCALAPPDATA) home = join(env.LOCALAPPDATA, 'dialeval', 'Cache');
  else home = join(homedir(), '.cache', 'dialeval');
  return join(home, 'v8-compile-cache', `${process.version}-${process.arch}-${tag}`);
}

/** Commands whose output directory is always a run (spec runs.md section 1), `--run` or not. */
const ALWAYS_A_RUN = new Set(['scorekeeping play', 'llm-judge run']);

/**
 * Whether this command line writes a run record (`--run`, `$DIALEVAL_RUNS`, or a command that always does): such a
 * process runs code (the writer, the items) one without never compiles, so the two keep their cache entries apart
 * ({@link compileCacheTag}); else a command tried once without `--run` would leave every later run to compile it anew.
 */
export function writesRunRecord(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.DIALEVAL_RUNS) return true;
  if (ALWAYS_A_RUN.has(`${argv[0]} ${argv[1]}`)) return true;
  return argv.some((a) => a === '--run' || a.startsWith('--run='));
}

/** Top-level commands, and those with subcommands (their entries are kept per subcommand). */
const COMMANDS = new Set([
  'cgt',
  'multiwoz',
  'scorekeeping',
  'llm-judge',
  'memory',
  'compare',
  'runs',
  'report',
  'resources',
  'demo',
]);
const WITH_SUBCOMMANDS = new Set(['multiwoz', 'scorekeeping', 'llm-judge', 'memory', 'resources']);

/**
 * The cache tag of a command line: the V8 settings (`v8Settings`), the command and its subcommand (`llm-judge-report`),
 * and `-run` when it writes a run record ({@link writesRunRecord}). V8 keeps in an entry only the functions the process
 * that made it ran, and commands share modules (`llm-judge run` and `report` share the package and the CLI's
 * llm-judge actions): with one set of entries for all, whichever command ran first would leave the others to compile
 * their own code anew on every run.
 */
export function compileCacheTag(
  argv: readonly string[],
  v8Settings: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const [command, sub] = argv;
  let name = command !== undefined && COMMANDS.has(command) ? command : 'other';
  if (WITH_SUBCOMMANDS.has(name) && sub !== undefined && /^[a-z][a-z-]*$/.test(sub)) name += `-${sub}`;
  return `${v8Settings}-${name}${writesRunRecord(argv, env) ? '-run' : ''}`;
}

/** FNV-1a of a string (32 bits, hex): a short, stable name for a path. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * Installs the cache for the CommonJS modules loaded from now on (`tag` names the V8 settings in effect, so that
 * runs with other settings keep their own entries). Returns this process's statistics, or undefined when nothing was
 * installed (turned off, or node's own cache was enabled instead).
 */
export function enableCompileCache(tag: string, env: NodeJS.ProcessEnv = process.env): CompileCacheStats | undefined {
  if (env.DIALEVAL_COMPILE_CACHE === '0') return undefined;
  // a policy manifest's integrity checks run in node's own compile step: left to node
  if ([...process.execArgv, env.NODE_OPTIONS ?? ''].some((a) => a.includes('policy'))) return undefined;
  const dir = compileCacheDir(tag, env);
  const builtIn = (Module as unknown as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
  if (typeof builtIn === 'function') {
    try {
      builtIn(dir);
    } catch {
      // node's own cache is an optimisation too
    }
    return undefined;
  }
  const stats: CompileCacheStats = { dir, hits: 0, misses: 0 };
  const proto = Module.prototype as unknown as {
    _compile: CompileFunction;
    require: (id: string) => unknown;
    paths?: string[];
  };
  const compile = proto._compile;
  const internals = Module as unknown as {
    wrap: (source: string) => string;
    _resolveFilename: (request: string, parent: Module, isMain: boolean, options?: unknown) => string;
    _resolveLookupPaths: (request: string, parent: Module) => string[] | null;
    _extensions: unknown;
    _cache: unknown;
  };
  const pending: Array<{ file: string; script: Script }> = [];
  proto._compile = function (this: Module, content: string, filename: string): unknown {
    if (!/\.c?js$/.test(filename) || content.includes('import(')) return compile.call(this, content, filename);
    let entry: string;
    let cached: Buffer | undefined;
    try {
      const st = statSync(filename);
      entry = join(dir, `${basename(filename)}-${fnv1a(filename)}-${st.size}-${Math.floor(st.mtimeMs)}.v8`);
    } catch {
      return compile.call(this, content, filename);
    }
    try {
      cached = readFileSync(entry);
    } catch {
      cached = undefined;
    }
    // (a shebang line is not JavaScript inside the wrapper; node strips it the same way)
    const source = content.startsWith('#!') ? `//${content.slice(2)}` : content;
    const script = new Script(internals.wrap(source), { filename, cachedData: cached });
    if (cached !== undefined && !script.cachedDataRejected) stats.hits++;
    else {
      stats.misses++;
      pending.push({ file: entry, script });
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const require = ((id: string) => this.require(id)) as NodeJS.Require;
    const requireResolve = ((request: string, options?: unknown) =>
      internals._resolveFilename(request, this, false, options)) as NodeJS.RequireResolve;
    requireResolve.paths = (request: string) => internals._resolveLookupPaths(request, this);
    require.resolve = requireResolve;
    require.main = process.mainModule;
    (require as unknown as { extensions: unknown }).extensions = internals._extensions;
    (require as unknown as { cache: unknown }).cache = internals._cache;
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  // the compiled code of what ran (lazily compiled functions included) is written when the process ends
  process.once('exit', () => {
    if (pending.length === 0) return;
    try {
      mkdirSync(dir, { recursive: true });
      for (const { file, script } of pending) {
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, file);
      }
    } catch {
      // a cache that cannot be written is only slower next time
    }
  });
  if (env.DIALEVAL_COMPILE_CACHE === 'debug')
    process.once('exit', () =>
      process.stderr.write(`dialeval: compile cache ${dir}: ${stats.hits} hit(s), ${stats.misses} miss(es)\n`),
    );
  return stats;
}
