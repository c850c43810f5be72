import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage, ChatModel } from '@eval/core';
import { InputError } from '@eval/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ANSWER_PROMPT_SYSTEMS,
  CONTEXT_TEMPLATE_FILES,
  HALUMEM_PROMPTS_ENV,
  MEM0_CUSTOM_INSTRUCTIONS_FILE,
  answerPromptFile,
  assertTemplateFields,
  loadAnswerPrompts,
  renderAnswerPrompt,
  renderContextTemplate,
  templateFieldNames,
  type HaluMemAnswerPrompts,
} from './answer-prompts';
import { ExtractRetrieveBaseline, FullContextBaseline } from './baselines/index';
import { HAS_MEMORY, SHARED_MEMORY, describeMemory } from './test/shared';

// The project's reference copies of HaluMem's answer-side texts (CC-BY-NC-ND: read from ../shared, never copied here).
const ANSWER_DIR = join(SHARED_MEMORY, 'answer_prompts');
const SCRIPT = join(__dirname, '..', '..', 'scripts', 'extract-halumem-prompts.mjs');
const shared = (name: string) => readFileSync(join(ANSWER_DIR, name), 'utf8');

let tmp: string;
let prompts: HaluMemAnswerPrompts;
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'memory-answer-prompts-'));
  if (HAS_MEMORY) prompts = await loadAnswerPrompts(ANSWER_DIR);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describeMemory('loadAnswerPrompts', () => {
  it('returns every file of the shared directory byte for byte', () => {
    expect(prompts.dir).toBe(ANSWER_DIR);
    for (const system of ANSWER_PROMPT_SYSTEMS)
      expect(prompts.answerPrompts[system]).toBe(shared(answerPromptFile(system)));
    for (const [adapter, file] of Object.entries(CONTEXT_TEMPLATE_FILES)) {
      expect(prompts.contextTemplates[adapter as keyof typeof CONTEXT_TEMPLATE_FILES]).toBe(shared(file));
    }
    expect(prompts.mem0CustomInstructions).toBe(shared(MEM0_CUSTOM_INSTRUCTIONS_FILE));
    // spec §8.2: PROMPT_* begin with a newline and end with a newline plus indentation; templates end with "\n"
    expect(prompts.answerPrompts.MEMZERO.startsWith('\n    You are')).toBe(true);
    expect(prompts.answerPrompts.MEMZERO.endsWith('Answer:\n    ')).toBe(true);
    expect(prompts.answerPrompts.MEMOBASE.endsWith('Answer:\n   ')).toBe(true);
    expect(prompts.contextTemplates.memos.endsWith('{memories}\n')).toBe(true);
    // all eleven files of the layout, nothing else
    expect(ANSWER_PROMPT_SYSTEMS.length + Object.keys(CONTEXT_TEMPLATE_FILES).length + 1).toBe(
      readdirSync(ANSWER_DIR).length,
    );
  });

  it('reads $DIALEVAL_HALUMEM_PROMPTS_DIR when no directory is given, and says how to get one otherwise', async () => {
    const viaEnv = await loadAnswerPrompts(undefined, { env: { [HALUMEM_PROMPTS_ENV]: ANSWER_DIR } });
    expect(viaEnv).toStrictEqual(prompts);
    await expect(loadAnswerPrompts(undefined, { env: {} })).rejects.toThrow(
      /DIALEVAL_HALUMEM_PROMPTS_DIR.*extract-halumem-prompts/,
    );
  });

  it('a missing file is an InputError naming it', async () => {
    const partial = join(tmp, 'partial');
    cpSync(ANSWER_DIR, partial, { recursive: true });
    rmSync(join(partial, 'eval_zep__TEMPLATE.txt'));
    const error = await loadAnswerPrompts(partial).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).file).toBe(join(partial, 'eval_zep__TEMPLATE.txt'));
    expect((error as Error).message).toMatch(/missing HaluMem prompt file eval_zep__TEMPLATE\.txt/);
  });
});

describeMemory('rendering', () => {
  it('renders PROMPT_MEMZERO as PROMPT_MEMZERO.format(context=..., question=...)', () => {
    const template = prompts.answerPrompts.MEMZERO;
    const context = 'Memories for user Lena Ortiz:\n\n    2024-03-01: Lena moved to {Porto} with {{two}} cats';
    const question = 'Where does Lena live?';
    // Hand derivation (spec §8.2): the prompt is <instructions>"{context}" + "\n\n    Question: {question}\n\n    Answer:\n    ";
    // values are inserted as they are (braces inside them are not re-read), the rest of the template is unchanged.
    const head = template.slice(0, template.indexOf('{context}'));
    expect(head.startsWith('\n    You are an intelligent memory assistant')).toBe(true);
    expect(head.endsWith('7. Ensure your final answer is specific and avoids vague time references\n\n    ')).toBe(
      true,
    );
    const expected =
      head +
      'Memories for user Lena Ortiz:\n\n    2024-03-01: Lena moved to {Porto} with {{two}} cats' +
      '\n\n    Question: ' +
      'Where does Lena live?' +
      '\n\n    Answer:\n    ';
    expect(renderAnswerPrompt(template, { context, question })).toBe(expected);
  });

  it('renders the context templates with their fields', () => {
    // TEMPLATE_MEMOS = "Memories for user {user_id}:\n\n    {memories}\n"; eval_memos joins the memories with "\n"
    expect(
      renderContextTemplate('memos', prompts.contextTemplates.memos, {
        user_id: 'Lena Ortiz_default',
        memories: ['a', 'b'].join('\n'),
      }),
    ).toBe('Memories for user Lena Ortiz_default:\n\n    a\nb\n');
    // TEMPLATE_MEMOBASE has a single newline after the colon
    expect(renderContextTemplate('memobase', prompts.contextTemplates.memobase, { user_id: 'u1', memories: 'm' })).toBe(
      'Memories for user u1:\n    m\n',
    );
    expect(
      renderContextTemplate('memzero_graph', prompts.contextTemplates.memzero_graph, {
        user_id: 'u1',
        memories: 'm',
        graph_memories: 'u1 -- lives_in -- Porto',
      }),
    ).toBe('Memories for user u1:\n\n    m\n\n    Relations for user u1:\n\n    u1 -- lives_in -- Porto\n');
    const zep = renderContextTemplate('zep', prompts.contextTemplates.zep, {
      facts: '  - f1 (event_time: 2024)',
      entities: '  - Lena: e1',
    });
    expect(zep.startsWith('\nFACTS and ENTITIES represent relevant context')).toBe(true);
    expect(
      zep.endsWith(
        '<FACTS>\n  - f1 (event_time: 2024)\n</FACTS>\n\n# These are the most relevant entities\n# ENTITY_NAME: entity summary\n<ENTITIES>\n  - Lena: e1\n</ENTITIES>\n',
      ),
    ).toBe(true);
    expect(() => renderContextTemplate('zep', prompts.contextTemplates.zep, { facts: 'x' } as never)).toThrow(
      /KeyError: 'entities'/,
    );
  });

  it('lists template fields as §8.2 states them', () => {
    for (const system of ANSWER_PROMPT_SYSTEMS)
      expect(templateFieldNames(prompts.answerPrompts[system])).toEqual(['context', 'question']);
    expect(templateFieldNames(prompts.contextTemplates.memzero)).toEqual(['user_id', 'memories']);
    expect(templateFieldNames(prompts.contextTemplates.supermemory)).toEqual(['user_id', 'memories']);
    expect(templateFieldNames(prompts.contextTemplates.memzero_graph)).toEqual([
      'user_id',
      'memories',
      'graph_memories',
    ]);
    expect(templateFieldNames(prompts.contextTemplates.zep)).toEqual(['facts', 'entities']);
    expect(templateFieldNames('a {{b}} {c}')).toEqual(['c']);
    expect(() => assertTemplateFields('{context} {persona}', ['context'], 'answerPrompt')).toThrow(
      /answerPrompt uses field\(s\) \{persona\}/,
    );
    // CPython 3.11: '{context'.format() raises "expected '}' before end of string" (recorded in @eval/core's cpython-cases.json)
    expect(() => assertTemplateFields('{context', ['context'], 'answerPrompt')).toThrow(
      /answerPrompt: expected '\}' before end of string/,
    );
  });
});

describeMemory('baselines with a HaluMem answer prompt', () => {
  const calls: ChatMessage[][] = [];
  const model: ChatModel = {
    id: 'scripted',
    async chat(messages) {
      calls.push(messages);
      return { text: 'Porto', finishReason: 'stop' };
    },
  };
  const ana = { uuid: 'u', name: 'Ana', personaInfo: '' };

  it('extract-retrieve fills {context} with the retrieved memories and {question} with the question', async () => {
    const b = new ExtractRetrieveBaseline({ model, answerPrompt: prompts.answerPrompts.MEMOS });
    const retrieval = { memories: ['Jan 01, 2025: Ana lives in Porto.', 'Jan 02, 2025: Ana has a dog.'] };
    expect(await b.answer({ user: ana, question: 'Where does Ana live?', retrieval })).toBe('Porto');
    expect(calls.at(-1)).toEqual([
      {
        role: 'user',
        content: renderAnswerPrompt(prompts.answerPrompts.MEMOS, {
          context: retrieval.memories.join('\n'),
          question: 'Where does Ana live?',
        }),
      },
    ]);
  });

  it('a prompt with fields the baselines do not fill is refused before any call', () => {
    expect(() => new FullContextBaseline({ model, answerPrompt: prompts.contextTemplates.zep })).toThrow(
      /uses field\(s\) \{facts\}, \{entities\}/,
    );
    expect(() => new ExtractRetrieveBaseline({ model, answerPrompt: prompts.contextTemplates.memos })).toThrow(
      /\{user_id\}, \{memories\}/,
    );
  });
});

describeMemory('scripts/extract-halumem-prompts.mjs', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  /** A Python string literal holding `text` the way HaluMem writes its constants (triple-quoted, no escapes). */
  const triple = (text: string) => {
    expect(text.includes('"""') || text.includes('\\')).toBe(false);
    return `"""${text}"""`;
  };

  /** A stand-in checkout with HaluMem's layout, its constants written from the shared texts as Python source. */
  function fakeCheckout(root: string): void {
    mkdirSync(join(root, 'eval'), { recursive: true });
    let promptsPy = '"""Answer prompts.\nPROMPT_FAKE = "inside a docstring"\n"""\n\n';
    for (const system of ANSWER_PROMPT_SYSTEMS)
      promptsPy += `PROMPT_${system} = ${triple(shared(answerPromptFile(system)))}\n\n`;
    writeFileSync(join(root, 'eval', 'prompts.py'), promptsPy);
    const byAdapter = new Map<string, string>();
    for (const name of readdirSync(ANSWER_DIR).filter((n) => n.startsWith('eval_'))) {
      const [adapter, constant] = name.slice(0, -'.txt'.length).split('__') as [string, string];
      const text = shared(name);
      const code =
        constant === 'custom_instructions'
          ? `def add_memories(client):\n    custom_instructions = ${triple(text)}\n    client.update_project(custom_instructions=custom_instructions)\n\n`
          : `${constant} = ${triple(text)}\n\n`;
      byAdapter.set(adapter, (byAdapter.get(adapter) ?? 'import json\nfrom prompts import PROMPT_X\n\n') + code);
    }
    for (const [adapter, code] of byAdapter) {
      // code after the constants, as in the adapters: f-strings, dicts, calls
      const tail = `def search(results, user_id):\n    x = {"a": 'TEMPLATE_NOT_THIS = "x"'}\n    return f"\\n{results.get('pref_string', '')}"\n`;
      writeFileSync(join(root, 'eval', `${adapter}.py`), code + tail);
    }
    // eval_tools.py holds the judge prompts, which are not extracted
    writeFileSync(join(root, 'eval', 'eval_tools.py'), 'TEMPLATE_JUDGE = """judge"""\n');
  }

  it('reproduces the layout from a checkout, byte for byte, with a SOURCE.md', async () => {
    const repo = join(tmp, 'HaluMem');
    fakeCheckout(repo);
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeFileSync(join(repo, '.git', 'HEAD'), '59402b9d662507406b584047d1982e0cbf453a0f\n');
    const out = join(tmp, 'extracted');
    const r = run(repo, out);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/wrote 11 files/);
    for (const name of readdirSync(ANSWER_DIR)) expect(readFileSync(join(out, name), 'utf8'), name).toBe(shared(name));
    expect(readdirSync(out).sort()).toEqual([...readdirSync(ANSWER_DIR), 'SOURCE.md'].sort());
    const source = readFileSync(join(out, 'SOURCE.md'), 'utf8');
    expect(source).toMatch(/MemTensor\/HaluMem at commit 59402b9d662507406b584047d1982e0cbf453a0f/);
    expect(source).toMatch(/CC-BY-NC-ND-4\.0/);
    // and the result loads
    expect(await loadAnswerPrompts(out)).toStrictEqual({ ...prompts, dir: out });
  });

  it('decodes Python string literals as Python does', () => {
    const repo = join(tmp, 'literals');
    fakeCheckout(repo);
    // Values below derived by hand from Python's literal rules: escapes, raw strings, adjacent-literal concatenation,
    // backslash-newline inside a triple-quoted string, unknown escapes kept, annotations, CRLF source newlines.
    const py = [
      '# TEMPLATE_COMMENTED = "no"',
      "TEMPLATE_A = 'tab\\there \\'q\\' \\x41\\u00e9\\101 \\q'",
      'TEMPLATE_B = ("first "  # comment',
      "    'second\\n'",
      '    r"raw\\n\\d")',
      'TEMPLATE_C: str = """line1\\',
      ' joined',
      "  \"quoted\" ''' and \\\\ backslash",
      '"""',
      'TEMPLATE_D = u"uni" "code"',
      'TEMPLATE_D = "reassigned"',
      '',
    ].join('\r\n');
    writeFileSync(join(repo, 'eval', 'eval_literals.py'), py);
    const out = join(tmp, 'literals-out');
    const r = run(repo, out);
    expect(r.status, r.stderr).toBe(0);
    const got = (name: string) => readFileSync(join(out, `eval_literals__${name}.txt`), 'utf8');
    expect(got('TEMPLATE_A')).toBe("tab\there 'q' AéA \\q");
    expect(got('TEMPLATE_B')).toBe('first second\nraw\\n\\d');
    expect(got('TEMPLATE_C')).toBe("line1 joined\n  \"quoted\" ''' and \\ backslash\n");
    expect(got('TEMPLATE_D')).toBe('reassigned');
    expect(
      readdirSync(out)
        .filter((n) => n.startsWith('eval_literals__'))
        .sort(),
    ).toEqual([
      'eval_literals__TEMPLATE_A.txt',
      'eval_literals__TEMPLATE_B.txt',
      'eval_literals__TEMPLATE_C.txt',
      'eval_literals__TEMPLATE_D.txt',
    ]);
  });

  it('refuses f-strings and reports missing constants (exit 1), usage errors (exit 2)', () => {
    const repo = join(tmp, 'bad');
    fakeCheckout(repo);
    writeFileSync(join(repo, 'eval', 'eval_fstr.py'), 'TEMPLATE_F = f"""{x}"""\n');
    const f = run(repo, join(tmp, 'bad-out'));
    expect(f.status).toBe(1);
    expect(f.stderr).toMatch(/line 1 \(TEMPLATE_F\): f-strings are not supported/);
    rmSync(join(repo, 'eval', 'eval_fstr.py'));
    rmSync(join(repo, 'eval', 'eval_zep.py'));
    const missing = run(repo, join(tmp, 'bad-out'));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/constants not found in .*: eval_zep__TEMPLATE\.txt/);
    expect(run(tmp).status).toBe(2);
    expect(run(join(tmp, 'nowhere'), join(tmp, 'x')).stderr).toMatch(/prompts\.py not found/);
  });
});
