import type { Command } from 'commander';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run every metric on small built-in examples (written for this project) and print a readable summary')
    .option('--format <format>', 'text or json', 'text')
    .option('--only <names>', 'comma-separated subset of demos')
    .action(async (opts: { format?: string; only?: string }) => {
      const { runDemo } = await import('../actions/demo');
      await runDemo(opts);
    });
}
