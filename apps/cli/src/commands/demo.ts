import { type Command, Option } from 'commander';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run every metric on small built-in examples (written for this project) and print a readable summary')
    .addOption(new Option('--format <format>', 'text or json').choices(['text', 'json']).default('text'))
    .option('--only <names>', 'comma-separated subset of demos')
    .action(async (opts: { format: 'text' | 'json'; only?: string }) => {
      const { runDemo } = await import('../actions/demo');
      await runDemo(opts);
    });
}
