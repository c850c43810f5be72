import type { RunManifest } from './schema';
import { RUN_SCHEMA_VERSION } from './version';

/**
 * The writer's check of a manifest before it is written: the same rules as `runManifestSchema` (`@eval/core/schemas`),
 * by hand, so that writing a run does not load zod (it costs a command ~35 ms and ~14 MiB; `@eval/core` loads without
 * it). The readers validate with the zod schema; `check.test.ts` holds this check to the schema's verdict on every
 * field. Returns the first problem (path and message), or undefined.
 */
export function checkRunManifest(m: RunManifest): { path: string; message: string } | undefined {
  const problems: Array<{ path: string; message: string }> = [];
  const at = (path: string, message: string) => problems.push({ path, message });
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  const str = (v: unknown, path: string, min = 0) => {
    if (typeof v !== 'string') at(path, 'expected a string');
    else if (v.length < min) at(path, `expected at least ${min} character`);
  };
  const optStr = (v: unknown, path: string) => v === undefined || str(v, path);
  const num = (v: unknown, path: string) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) at(path, 'expected a finite number');
  };
  const count = (v: unknown, path: string, integer = true) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) at(path, 'expected a finite number');
    else if (integer && !Number.isSafeInteger(v)) at(path, 'expected a safe integer');
    else if (v < 0) at(path, 'expected a non-negative number');
  };
  const obj = (v: unknown, path: string, fields: (o: Record<string, unknown>) => void) => {
    if (!isObject(v)) at(path, 'expected an object');
    else fields(v);
  };
  const array = (v: unknown, path: string, each: (x: unknown, p: string) => void) => {
    if (!Array.isArray(v)) at(path, 'expected an array');
    else v.forEach((x, i) => each(x, `${path}.${i}`));
  };
  const record = (v: unknown, path: string, each: (x: unknown, p: string) => void) => {
    if (!isObject(v)) at(path, 'expected an object');
    else for (const [k, x] of Object.entries(v)) each(x, `${path}.${k}`);
  };
  const optRecord = (v: unknown, path: string) => v === undefined || record(v, path, () => {});

  if (!isObject(m)) return { path: '(root)', message: 'expected an object' };
  if (m.schemaVersion !== RUN_SCHEMA_VERSION) at('schemaVersion', `expected ${RUN_SCHEMA_VERSION}`);
  str(m.id, 'id', 1);
  str(m.benchmark, 'benchmark', 1);
  str(m.variant, 'variant');
  str(m.system, 'system');
  str(m.createdAt, 'createdAt');
  str(m.finishedAt, 'finishedAt');
  if (!['complete', 'partial', 'failed'].includes(m.status as string))
    at('status', 'expected "complete", "partial" or "failed"');
  obj(m.tool, 'tool', (t) => {
    optStr(t.cli, 'tool.cli');
    record(t.packages, 'tool.packages', str);
    str(t.node, 'tool.node');
    str(t.platform, 'tool.platform');
  });
  array(m.command, 'command', (x, p) => str(x, p));
  array(m.inputs, 'inputs', (x, p) =>
    obj(x, p, (i) => {
      str(i.role, `${p}.role`);
      str(i.path, `${p}.path`);
      count(i.size, `${p}.size`);
      if (typeof i.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(i.sha256))
        at(`${p}.sha256`, 'expected 64 lowercase hex digits');
    }),
  );
  array(m.resources, 'resources', (x, p) =>
    obj(x, p, (r) => {
      str(r.name, `${p}.name`);
      optStr(r.commit, `${p}.commit`);
      optStr(r.sha256, `${p}.sha256`);
      if (
        r.source !== undefined &&
        !['option', 'env', 'cache', 'default texts', 'directory'].includes(r.source as string)
      )
        at(`${p}.source`, 'expected a known source');
    }),
  );
  record(m.options, 'options', () => {});
  if (m.llm !== undefined)
    obj(m.llm, 'llm', (l) => {
      str(l.endpointHost, 'llm.endpointHost');
      str(l.model, 'llm.model');
      if (l.modelReported !== undefined) array(l.modelReported, 'llm.modelReported', str);
      optRecord(l.sampling, 'llm.sampling');
      obj(l.calls, 'llm.calls', (c) => {
        for (const k of ['made', 'cached', 'failed', 'retried']) count(c[k], `llm.calls.${k}`);
      });
      obj(l.tokens, 'llm.tokens', (t) => {
        count(t.prompt, 'llm.tokens.prompt', false);
        count(t.completion, 'llm.tokens.completion', false);
      });
      count(l.costUsd, 'llm.costUsd', false);
      optRecord(l.prices, 'llm.prices');
      if (typeof l.batch !== 'boolean') at('llm.batch', 'expected a boolean');
      optStr(l.cache, 'llm.cache');
    });
  record(m.metrics, 'metrics', (x, p) =>
    obj(x, p, (metric) => {
      if (metric.value !== null) num(metric.value, `${p}.value`);
      count(metric.n, `${p}.n`);
      if (metric.ci !== undefined) {
        if (!Array.isArray(metric.ci) || metric.ci.length !== 2) at(`${p}.ci`, 'expected [lower, upper]');
        else metric.ci.forEach((c, i) => num(c, `${p}.ci.${i}`));
      }
      optStr(metric.ciMethod, `${p}.ciMethod`);
      optStr(metric.unit, `${p}.unit`);
    }),
  );
  obj(m.counts, 'counts', (c) => {
    for (const k of ['items', 'evaluated', 'failed', 'skipped']) count(c[k], `counts.${k}`);
  });
  array(m.failures, 'failures', (x, p) =>
    obj(x, p, (f) => {
      str(f.id, `${p}.id`);
      str(f.reason, `${p}.reason`);
    }),
  );
  array(m.artifacts, 'artifacts', (x, p) =>
    obj(x, p, (a) => {
      str(a.path, `${p}.path`);
      str(a.format, `${p}.format`);
    }),
  );
  return problems[0];
}
