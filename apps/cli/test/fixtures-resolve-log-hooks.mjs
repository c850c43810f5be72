// Module-resolution hook used by the laziness test: appends every `@eval/*` specifier that gets resolved to the file
// named by DIALEVAL_RESOLVE_LOG.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@eval/') && process.env.DIALEVAL_RESOLVE_LOG)
    appendFileSync(process.env.DIALEVAL_RESOLVE_LOG, `${specifier}\n`);
  return next(specifier, context);
}
