import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const CLI_ROOT = join(__dirname, '..');
export const SHARED = join(CLI_ROOT, '..', '..', '..', 'shared');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `dialeval` binary from source (tsx, `@eval/source` condition) in a child process:
 * end-to-end, exit code and streams as a user sees them.
 */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@eval/source', '--import', 'tsx', join(CLI_ROOT, 'src', 'bin.ts'), ...args],
      { cwd: options.cwd ?? CLI_ROOT, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
