#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// `dialeval multiwoz` holds a few MB of data and makes millions of short-lived strings: V8's young generation,
// growing to 16 MiB semi-spaces, adds ~25 MiB of peak RSS there for no speed gain (packages/multiwoz/bench measures
// it). Keeping the semi-spaces at their initial size is the one heap setting V8 still honours once running
// (`--max-semi-space-size` is only read at start-up), so it is set before anything else is loaded. Other commands
// keep V8's defaults.
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
