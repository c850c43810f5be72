import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

// ESM imports: the resolve hook in fixtures-resolve-log-hooks.mjs
register('./fixtures-resolve-log-hooks.mjs', import.meta.url);

// require() (the CLI's CommonJS build, which the installed `dialeval` runs): the same log, from the CommonJS resolver
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (typeof request === 'string' && request.startsWith('@eval/') && process.env.DIALEVAL_RESOLVE_LOG)
    appendFileSync(process.env.DIALEVAL_RESOLVE_LOG, `${request}\n`);
  return resolveFilename.call(this, request, ...rest);
};
