import { register } from 'node:module';

register('./fixtures-resolve-log-hooks.mjs', import.meta.url);
