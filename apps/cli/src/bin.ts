#!/usr/bin/env node
import module from 'node:module';

// node >= 22.1 keeps the compiled code of the modules between runs; older nodes have no such option.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// `dialeval ... | head`: a closed pipe is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// loaded after the cache is enabled, so that the cache covers the CLI's own modules
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
