#!/usr/bin/env node
import { main } from './main';

// `dialeval ... | head`: a closed pipe is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`dialeval: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
