import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWithReferenceData, referencePath } from '../../../../test-support/reference-data';
import { readOutputEntries, verifyPrompts } from './recorded';
import { renderPrompt, SKIPPED_ACCURACY_OUTPUT } from './render';
import { loadTemplates } from './templates';
import type { TemplateRole } from './methods';

const SHARED = referencePath('llm-judge');
const TEMPLATES = referencePath('llm-judge/templates');

const FILES: Array<[string, TemplateRole]> = [
  ['ours_acc_outputs.json', 'ours-accuracy'],
  ['ours_comp_outputs.json', 'ours-completeness'],
  ['direct_outputs.json', 'direct'],
  ['cot_outputs.json', 'cot'],
];

describeWithReferenceData('llm-judge/slice', 'llm-judge/templates')(
  'prompt rendering parity with the recorded slice',
  () => {
    for (const [file, role] of FILES) {
      it(`${file}: every recorded prompt re-renders byte for byte with the ${role} template`, async () => {
        const templates = await loadTemplates([role], { dir: TEMPLATES });
        const entries = await readOutputEntries(join(SHARED, 'slice', file));
        expect(entries.length).toBe(42);
        const check = verifyPrompts(entries, templates[role]);
        expect(check.mismatches).toEqual([]);
        expect(check.checked + check.placeholders).toBe(42);
        if (role !== 'ours-accuracy') expect(check.placeholders).toBe(0);
      });
    }

    it('skipped accuracy calls are exactly the entries with an empty predicted turn label', async () => {
      const entries = await readOutputEntries(join(SHARED, 'slice', 'ours_acc_outputs.json'));
      const skipped = entries.filter((e) => e.prompt === '');
      expect(skipped.length).toBeGreaterThan(0);
      for (const e of entries) {
        expect(e.prompt === '').toBe(e.record.predictTurnLabel.size === 0);
        if (e.prompt === '') expect(e.output).toBe(SKIPPED_ACCURACY_OUTPUT);
      }
    });

    it('covers the double-quote repr case (an utterance with an apostrophe)', async () => {
      const templates = await loadTemplates(['ours-completeness'], { dir: TEMPLATES });
      const entries = await readOutputEntries(join(SHARED, 'slice', 'ours_comp_outputs.json'));
      const withApostrophe = entries.filter((e) => e.record.history.some((h) => h.includes("'") && !h.includes('"')));
      expect(withApostrophe.length).toBeGreaterThan(0);
      for (const e of withApostrophe) expect(renderPrompt(templates['ours-completeness'], e.record)).toBe(e.prompt);
      // Python repr switches to double quotes for such strings
      const e = withApostrophe[0]!;
      const h = e.record.history.find((x) => x.includes("'") && !x.includes('"'))!;
      expect(e.prompt).toContain(`"${h}"`);
    });
  },
);
