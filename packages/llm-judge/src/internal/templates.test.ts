import { readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchResourceSet, getResourceSet } from '@eval/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasReferenceData, itWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import type { TemplateRole } from './methods';
import { loadTemplates, TEMPLATE_FILES, TEMPLATE_RESOURCE } from './templates';

const TEMPLATES = referencePath('llm-judge/templates');
const HAS_TEMPLATES = hasReferenceData('llm-judge/templates');
const itWithTemplates = itWithReferenceData('llm-judge/templates');
const ROLES = Object.keys(TEMPLATE_FILES) as TemplateRole[];

let dir: string;
let server: Server;
let mirror = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'llm-judge-templates-'));
  // a loopback stand-in for raw.githubusercontent.com serving the repository paths of the pinned commit
  const set = getResourceSet(TEMPLATE_RESOURCE);
  const byUrl = new Map(
    (HAS_TEMPLATES ? set.files : []).map((f) => [
      `/${set.repo}/${set.commit}/${f.source}`,
      readFileSync(join(TEMPLATES, f.path)),
    ]),
  );
  server = createServer((req, res) => {
    const body = byUrl.get(req.url ?? '');
    if (body) res.writeHead(200).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  mirror = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

describe('template resource', () => {
  it('the llm-dst-eval set pins the six templates (sha256 of the fixtures) at their repository paths', () => {
    const set = getResourceSet(TEMPLATE_RESOURCE);
    expect(set.repo).toBe('SLEEPWALKERG/LLM-DST-EVAL');
    expect(set.commit).toBe('45eb519c888de4b8461b514d8b75e8f63b9280f7');
    expect(set.envVar).toBe('DIALEVAL_LLM_DST_EVAL_DIR');
    expect(set.files.map((f) => f.path).sort()).toEqual(ROLES.map((r) => TEMPLATE_FILES[r][0]).sort());
    for (const f of set.files)
      expect(TEMPLATE_FILES[ROLES.find((r) => TEMPLATE_FILES[r][0] === f.path)!][1]).toBe(f.source);
  });

  itWithTemplates(
    'fetch (checksums verified) installs them where loadTemplates finds them, byte-identical',
    async () => {
      const home = join(dir, 'home');
      const r = await fetchResourceSet(TEMPLATE_RESOURCE, { home, env: {}, mirror });
      expect(r.files).toBe(6);
      const t = await loadTemplates(ROLES, { home, env: {} });
      for (const role of ROLES) {
        expect(t[role].text).toBe(readFileSync(join(TEMPLATES, TEMPLATE_FILES[role][0]!), 'utf8'));
        expect(t[role].text.endsWith('\n')).toBe(false);
      }
    },
  );

  itWithTemplates('reads a clone of the reference repository too (repository paths)', async () => {
    const clone = join(dir, 'clone');
    for (const role of ROLES) {
      const [installed, repoPath] = TEMPLATE_FILES[role];
      await mkdir(join(clone, repoPath!, '..'), { recursive: true });
      await writeFile(join(clone, repoPath!), readFileSync(join(TEMPLATES, installed!)));
    }
    const t = await loadTemplates(ROLES, { dir: clone });
    expect(t.cot.source).toBe(join(clone, 'single-step/template/template_manual_cot.txt'));
  });

  it('missing templates say how to get them; a broken template is an input error naming the file', async () => {
    await expect(loadTemplates(['ours-accuracy'], { home: join(dir, 'empty'), env: {} })).rejects.toThrow(
      /dialeval resources fetch llm-dst-eval/,
    );
    await expect(
      loadTemplates(['ours-accuracy'], { env: { DIALEVAL_LLM_DST_EVAL_DIR: join(dir, 'empty') } }),
    ).rejects.toThrow(/DIALEVAL_LLM_DST_EVAL_DIR=/);
    const bad = join(dir, 'bad');
    await mkdir(bad, { recursive: true });
    await writeFile(join(bad, TEMPLATE_FILES.direct[0]!), 'History: {history}\n{nope}');
    await expect(loadTemplates(['direct'], { dir: bad })).rejects.toThrow(
      /single_direct__template_manual\.txt: not a valid str\.format template for direct: unknown field \{nope\}/,
    );
  });
});
