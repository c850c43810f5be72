import { Command, CommanderError } from 'commander';
import { type ErrorCategory, EvalError, errorCategory } from '@eval/core';
import { commands } from './commands/index';
import { rememberCommandLine } from './run-record';
import { configFailure, filesystemFailure } from './failures';
import { UsageError } from './util';

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** The exit code of each error category (CONTRIBUTING.md, "Errors and exit codes"). */
export const EXIT_CODES: Readonly<Record<ErrorCategory, number>> = {
  input: EXIT.usage,
  configuration: EXIT.usage,
  filesystem: EXIT.usage,
  evaluation: EXIT.failure,
  internal: EXIT.failure,
};

/** Exit code for an error: by its category (2 for bad input, usage, configuration and filesystem; else 1). */
export function exitCodeFor(error: unknown): number {
  return EXIT_CODES[errorCategory(error)];
}

/**
 * The program with its subcommands. Given the arguments, and when the first one names a subcommand, only that one is
 * declared (the others' declarations would be work for nothing); otherwise (`--help`, `help`, an unknown or missing
 * command) all of them are, for the help text and the "did you mean" suggestions.
 */
export function buildProgram(argv?: readonly string[]): Command {
  const program = new Command('dialeval')
    .description('Evaluate dialogue systems: common ground tracking, MultiWOZ, scorekeeping, LLM judges, agent memory')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  const only = argv?.[0] !== undefined && Object.hasOwn(commands, argv[0]) ? commands[argv[0]] : undefined;
  if (only) only(program);
  else for (const register of Object.values(commands)) register(program);
  return program;
}

/** Runs the CLI on `argv` (without `node` and the script). Resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram(argv);
  rememberCommandLine(argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      )
        return EXIT.ok;
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const config = configFailure(error);
    if (config) {
      const message = (error as Error).message;
      process.stderr.write(
        `dialeval: configuration error (${config.cause}): ${message}\n${message.includes(config.fix) ? '' : `fix: ${config.fix}\n`}`,
      );
      return EXIT_CODES.configuration;
    }
    const fs = filesystemFailure(error);
    if (fs) {
      process.stderr.write(`dialeval: error: ${fs}\n`);
      return EXIT_CODES.filesystem;
    }
    const code = exitCodeFor(error);
    const message = EvalError.isInstance(error) ? error.message : ((error as Error)?.stack ?? String(error));
    const label = UsageError.isInstance(error) ? 'usage' : EvalError.isInstance(error) ? 'error' : 'internal error';
    process.stderr.write(`dialeval: ${label}: ${message}\n`);
    return code;
  }
}
