import { type Command, Option } from 'commander';

export function registerResources(program: Command): void {
  const resources = program
    .command('resources')
    .description(
      'List, fetch and locate the reference data and method texts that packages read (never shipped in packages)',
    );
  resources
    .command('list')
    .description('list the known resource sets and whether each is installed')
    .addOption(new Option('--format <format>', 'table or json').choices(['table', 'json']).default('table'))
    .action(async (opts: { format: 'table' | 'json' }) => {
      const { resourcesList } = await import('../actions/resources');
      await resourcesList(opts);
    });
  resources
    .command('fetch')
    .argument('<name>', 'resource set name (see `dialeval resources list`)')
    .description('download a resource set at its pinned commit, verify every sha256 and install it atomically')
    .option('--force', 're-download even when installed')
    .option('--mirror <url>', 'base URL replacing https://raw.githubusercontent.com (also DIALEVAL_MIRROR)')
    .action(async (name: string, opts: { force?: boolean; mirror?: string }) => {
      const { resourcesFetch } = await import('../actions/resources');
      await resourcesFetch(name, opts);
    });
  resources
    .command('path')
    .argument('<name>', 'resource set name')
    .description('print the directory a package would read the set from (option, environment variable, cache)')
    .action(async (name: string) => {
      const { resourcesPath } = await import('../actions/resources');
      await resourcesPath(name);
    });
}
