import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchResourceSet, getResourceSet } from '@eval/core';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultResources } from './defaults';
import {
  EXPERIMENTS,
  loadResourceDir,
  requiredResourceFiles,
  resolveGameResources,
  resourcePaths,
  writeResourceDir,
} from './resources';
import { CANONICAL_DIR, itCanonical } from './test-support/shared';

const temps: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sk-res-'));
  temps.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('resource directory (clembench layout)', () => {
  itCanonical('loads the canonical texts', async () => {
    const res = await loadResourceDir(CANONICAL_DIR);
    expect(res.isDefault).toBe(false);
    expect(res.words.tags['job-interview']).toBe('RECRUITER');
    expect(res.reprompts).toHaveLength(5);
    expect(res.reprompts[0]).toBe('');
    expect(Object.keys(res.experiments['things-places'].slotValues)).toHaveLength(15);
    expect(Object.keys(res.experiments['letter-number'].slotValues)).toHaveLength(10);
    // templates have no trailing newline
    expect(res.experiments['travel-booking'].template.endsWith('Let us start.')).toBe(true);
    expect(res.experiments['job-interview'].requests['highest-education']).toContain(
      'What is your lastest education degree?',
    );
  });

  it('round-trips the default texts through a directory', async () => {
    const dir = await tempDir();
    await writeResourceDir(defaultResources(), dir);
    const back = await loadResourceDir(dir);
    expect({ ...back, source: 'defaults', isDefault: true }).toEqual(defaultResources());
    expect(requiredResourceFiles()).toHaveLength(2 + 4 * EXPERIMENTS.length);
  });

  it('a missing file is a clear error naming it', async () => {
    const dir = await tempDir();
    await writeResourceDir(defaultResources(), dir);
    await unlink(join(dir, resourcePaths.probingQuestions('restaurant')));
    await expect(loadResourceDir(dir)).rejects.toThrow(
      /resources\/texts\/restaurant\/probing_questions\.json: missing file of the resource directory/,
    );
    await unlink(join(dir, resourcePaths.template('travel-booking')));
    await expect(loadResourceDir(dir)).rejects.toThrow(/travel-booking_1\.template: missing file/);
  });

  it('a malformed field is named', async () => {
    const dir = await tempDir();
    await writeResourceDir(defaultResources(), dir);
    const wordsFile = join(dir, resourcePaths.words);
    const words = JSON.parse(await readFile(wordsFile, 'utf8'));
    delete words.tags.restaurant;
    await writeFile(wordsFile, JSON.stringify(words));
    await expect(loadResourceDir(dir)).rejects.toThrow(/en_words\.json, field tags\.restaurant/);
    await writeResourceDir(defaultResources(), dir);
    const req = join(dir, resourcePaths.requests('job-interview'));
    const requests = JSON.parse(await readFile(req, 'utf8'));
    requests.availability = [];
    await writeFile(req, JSON.stringify(requests));
    await expect(loadResourceDir(dir)).rejects.toThrow(
      /job-interview\/requests\.json, field availability: needs at least one entry/,
    );
    requests.availability = ['When?'];
    requests.salary = ['How much?'];
    await writeFile(req, JSON.stringify(requests));
    await expect(loadResourceDir(dir)).rejects.toThrow(/requests\.json, field salary: slot "salary" is not in/);
    await writeFile(req, '{"bachelor": [');
    await expect(loadResourceDir(dir)).rejects.toThrow(/requests\.json: invalid JSON/);
  });

  itCanonical('resolves --resources, the environment variable, then falls back to the labelled defaults', async () => {
    const home = await tempDir();
    const env = { DIALEVAL_HOME: home } as NodeJS.ProcessEnv;
    const fallback = await resolveGameResources({ env });
    expect(fallback.resources.isDefault).toBe(true);
    expect(fallback.dir).toBeUndefined();
    const fromEnv = await resolveGameResources({
      env: { ...env, DIALEVAL_CLEMBENCH_PRIVATESHARED_DIR: CANONICAL_DIR },
    });
    expect(fromEnv.dir).toBe(CANONICAL_DIR);
    expect(fromEnv.resources.words.tags['travel-booking']).toBe('TRAVEL-AGENT');
    const explicit = await resolveGameResources({ dir: CANONICAL_DIR, env });
    expect(explicit.resources.isDefault).toBe(false);
    expect(
      (
        await resolveGameResources({
          dir: 'default',
          env: { ...env, DIALEVAL_CLEMBENCH_PRIVATESHARED_DIR: CANONICAL_DIR },
        })
      ).resources.isDefault,
    ).toBe(true);
    await expect(resolveGameResources({ dir: join(home, 'nope'), env })).rejects.toThrow(/is not a directory/);
  });

  itCanonical(
    'the clembench-privateshared resource set pins every file with its checksum (fetch from a local mirror)',
    async () => {
      const set = getResourceSet('clembench-privateshared');
      expect(set.repo).toBe('clp-research/clembench');
      expect(set.commit).toBe('a717f23808f4865631ffde81c37b60c7da3f5ec3');
      expect(set.envVar).toBe('DIALEVAL_CLEMBENCH_PRIVATESHARED_DIR');
      for (const f of requiredResourceFiles()) expect(set.files.map((x) => x.path)).toContain(f);
      const home = await tempDir();
      const requested: string[] = [];
      const fakeFetch = (async (url: string) => {
        const prefix = `http://mirror.invalid/${set.repo}/${set.commit}/privateshared/`;
        if (!String(url).startsWith(prefix)) return new Response('not found', { status: 404 });
        const rel = String(url).slice(prefix.length);
        requested.push(rel);
        return new Response(await readFile(join(CANONICAL_DIR, rel)));
      }) as typeof fetch;
      const result = await fetchResourceSet('clembench-privateshared', {
        home,
        mirror: 'http://mirror.invalid',
        fetch: fakeFetch,
      });
      expect(result.files).toBe(set.files.length);
      expect(requested).toContain('in/instances.json');
      const installed = await resolveGameResources({ env: { DIALEVAL_HOME: home } as NodeJS.ProcessEnv });
      expect(installed.dir).toBe(result.dir);
      expect(installed.resources).toEqual({ ...(await loadResourceDir(CANONICAL_DIR)), source: result.dir });
    },
  );
});
