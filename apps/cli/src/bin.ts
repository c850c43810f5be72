#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { compileCacheTag, enableCompileCache } from './compile-cache';

// `dialeval multiwoz` is a short process (a fraction of a second on the full test set) that holds a few MB of data and
// makes many short-lived strings; two kinds of V8 settings, set before anything else is loaded, make it faster:
// - Heap: of the heap settings, only the young generation's growth factor still takes effect once V8 is running
//   (`--max-semi-space-size` and `--min-semi-space-size` are read at start-up and ignored here; `--single-threaded-gc`
//   set now crashes V8 at the first full GC). A factor of 1 keeps the semi-spaces at their initial size: V8's default
//   lets them grow to 16 MiB, and the peak RSS on the full test set rose from 72 to 88 MiB (node 20.20), for no gain in
//   time (more scavenges, each cheap).
// - Optimising compiler: most of the process runs before TurboFan's optimised code arrives, and TurboFan's jobs
//   compete with the main thread for the cores. Without inlining (of functions and of array builtins) and loop peeling
//   the jobs are much cheaper and finish sooner; the code they make is a little slower, which only a process running
//   for seconds pays back (`multiwoz compare` with many resamples: it keeps the defaults). These are compile-time
//   settings, read by each job, so setting them now takes effect. Measured with node 20 (V8 11): applied there only
//   (another V8 may lack a flag, and would print an error for it).
// `pnpm bench` (packages/multiwoz/bench) measures the command as this file runs it. Other commands keep V8's defaults.
const SHORT_RUN_V8_FLAGS = ['--no-turbo-inlining', '--no-turbo-inline-array-builtins', '--no-turbo-loop-peeling'];
let v8Settings = 'default';
if (process.argv[2] === 'multiwoz') {
  setFlagsFromString('--semi-space-growth-factor=1');
  v8Settings = 'multiwoz';
  if (process.argv[3] !== 'compare' && process.versions.v8.startsWith('11.')) {
    for (const flag of SHORT_RUN_V8_FLAGS) setFlagsFromString(flag);
    v8Settings = 'multiwoz-short';
  }
}

// The installed `dialeval` is the CommonJS build: its modules' compiled code is cached between runs (compile-cache.ts).
// Entries are kept per command, subcommand and run record (compileCacheTag).
if (typeof require === 'function' && typeof module === 'object')
  enableCompileCache(compileCacheTag(process.argv.slice(2), v8Settings));

// `dialeval ... | head`: a closed pipe is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

import('./main')
  .then(({ main }) => main(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`dialeval: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
