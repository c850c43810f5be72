#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// `dialeval multiwoz` holds a few MB of data and makes many short-lived strings. Of the heap settings, only the
// young generation's growth factor still takes effect once V8 is running (`--max-semi-space-size` and
// `--min-semi-space-size` are read at start-up and ignored here; `--single-threaded-gc` set now crashes V8 at the first
// full GC). Measured on the full test set (Success + richness, ubar / augpt / galaxy-e2e, medians of 5, node 20.20):
// V8's default lets the semi-spaces grow to 16 MiB and peaks at 117-121 MiB RSS; a factor of 3 at 114-118 MiB; a
// factor of 1 (semi-spaces kept at their initial size) at 88-93 MiB (79-84 MiB since neither `@eval/core` nor
// `@eval/multiwoz` loads zod; a factor of 2 then peaks at ~114 MiB, same CPU), with the same CPU time within noise (more
// scavenges, each cheap; adding `--no-minor-gc-task` changed nothing). So the factor is set to 1, before anything
// else is loaded. Other commands keep V8's defaults.
if (process.argv[2] === 'multiwoz') setFlagsFromString('--semi-space-growth-factor=1');

// `dialeval ... | head`: a closed pipe is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

import('./main').then(({ main }) => main(process.argv.slice(2))).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`dialeval: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
