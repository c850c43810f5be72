import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The page scripts: the report (`client/main.ts`) and the leaderboard (`client/leaderboard.ts`). */
export type ClientEntry = 'report' | 'leaderboard';

// Set by the package build (tsup.config.ts bundles the client with esbuild and defines these as string constants).
declare const __REPORT_CLIENT__: string | undefined;
declare const __LEADERBOARD_CLIENT__: string | undefined;

const ENTRY_FILES: Record<ClientEntry, string> = { report: 'main.ts', leaderboard: 'leaderboard.ts' };

/** esbuild's options for a page script: one minified IIFE for browsers, no network, nothing left to import. */
export const CLIENT_BUILD_OPTIONS = {
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  legalComments: 'none',
  charset: 'utf8',
  write: false,
} as const;

/** The part of esbuild's API used here (esbuild is tsup's dependency, not this package's). */
interface Esbuild {
  buildSync(options: typeof CLIENT_BUILD_OPTIONS & { entryPoints: string[] }): { outputFiles: Array<{ text: string }> };
}

const cache = new Map<ClientEntry, string>();

/** This file's directory (ESM source or build; in the CommonJS build import.meta.url is empty). */
function here(): string {
  const url: string | undefined = import.meta.url;
  return dirname(url ? fileURLToPath(url) : __filename);
}

/**
 * The page script of `entry`. A built package has it inlined at build time; from source (tests, `tsx`) it is bundled
 * here once per process with the esbuild that tsup brings.
 */
export function clientScript(entry: ClientEntry): string {
  const built =
    entry === 'report'
      ? typeof __REPORT_CLIENT__ === 'string'
        ? __REPORT_CLIENT__
        : undefined
      : typeof __LEADERBOARD_CLIENT__ === 'string'
        ? __LEADERBOARD_CLIENT__
        : undefined;
  if (built !== undefined) return built;
  let code = cache.get(entry);
  if (code === undefined) {
    const file = join(here(), '..', 'client', ENTRY_FILES[entry]);
    if (!existsSync(file)) throw new Error(`@eval/report: the page script ${file} is missing (a broken build?)`);
    code = bundleClient(file);
    cache.set(entry, code);
  }
  return code;
}

/** Bundles one client entry with esbuild (resolved through tsup, the build tool that depends on it). */
export function bundleClient(file: string): string {
  const fromHere = createRequire(join(here(), 'bundle.ts'));
  const esbuild = createRequire(fromHere.resolve('tsup'))('esbuild') as Esbuild;
  const result = esbuild.buildSync({ ...CLIENT_BUILD_OPTIONS, entryPoints: [file] });
  const code = result.outputFiles[0]!.text;
  if (/<\/script|<!--/i.test(code)) throw new Error(`@eval/report: ${file} bundles a sequence that cannot be inlined`);
  return code;
}
