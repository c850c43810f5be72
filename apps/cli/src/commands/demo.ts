import { type Command, Option } from 'commander';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run every metric on small built-in examples (written for this project) and print a readable summary')
    .addOption(new Option('--format <format>', 'text or json').choices(['text', 'json']).default('text'))
    .option('--only <names>', 'comma-separated subset of demos')
    .option(
      '--report <file>',
      'where the demo report (HTML) goes, its run beside it in dialeval-demo-run/ (default: a new temporary directory)',
    )
    .action(async (opts: { format: 'text' | 'json'; only?: string; report?: string }) => {
      const { runDemo } = await import('../actions/demo');
      await runDemo(opts);
    });
}
