import { demos } from '../demo/index';
import { writeDemoReport } from '../demo/report';
import { UsageError, emit } from '../util';

export async function runDemo(opts: { format: 'text' | 'json'; only?: string; report?: string }): Promise<void> {
  const format = opts.format;
  const wanted = opts.only ? opts.only.split(',').map((s) => s.trim()) : undefined;
  const unknown = wanted?.filter((w) => !demos.some((d) => d.name === w)) ?? [];
  if (unknown.length > 0)
    throw new UsageError(`unknown demo(s): ${unknown.join(', ')} (available: ${demos.map((d) => d.name).join(', ')})`);
  const selected = demos.filter((d) => !wanted || wanted.includes(d.name));
  const results: Record<string, unknown> = {};
  const out: string[] = ['dialeval demo: every metric on small built-in examples', ''];
  for (const demo of selected) {
    const started = performance.now();
    const result = await demo.run();
    const ms = performance.now() - started;
    results[demo.name] = result.data;
    out.push(`== ${demo.title} (${ms.toFixed(0)} ms)`, ...result.lines.map((l) => `   ${l}`), '');
  }
  if (selected.length === 0) out.push('(no metric packages registered yet)');
  const report = await writeDemoReport(results, opts.report);
  if (report && format !== 'json')
    out.push(
      `== Report: open ${report} in a browser (one self-contained HTML file; dialeval report RUN... writes one for any run)`,
      '',
    );
  await emit(format === 'json' ? JSON.stringify(results, null, 2) : out.join('\n'));
  if (report && format === 'json') process.stderr.write(`dialeval demo: report written to ${report}\n`);
}
