import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FileSystemError, InputError } from './errors';
import {
  readCsv,
  readJson,
  readJsonlAll,
  readText,
  removeStaleTempFiles,
  writeFileAtomic,
  type InvalidUtf8Report,
} from './io';
import { Utf8Validator } from './utf8';

const dir = mkdtempSync(join(tmpdir(), 'eval-core-io-faults-'));

describe('invalid UTF-8 in inputs', () => {
  // {"a": "caf<0xE9>"}: byte 0xE9 (latin-1 "é") sits at offset 10 ({ " a " : space " c a f = 10 bytes before it).
  const latin1 = Buffer.concat([Buffer.from('{"a": "caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]);

  it('is an InputError naming the file and the byte offset (readJson, readText, readCsv)', async () => {
    const file = join(dir, 'latin1.json');
    writeFileSync(file, latin1);
    const error = await readJson(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ code: 'invalid_utf8', file });
    expect((error as Error).message).toBe(
      `${file}: invalid UTF-8 at byte offset 10 (pass --allow-invalid-utf8 to replace invalid bytes with U+FFFD)`,
    );
    await expect(readText(file)).rejects.toMatchObject({ code: 'invalid_utf8' });
    await expect(readCsv(file)).rejects.toMatchObject({ code: 'invalid_utf8' });
  });

  it('readJsonl: offset counted across lines (and in the decompressed content of gzip files)', async () => {
    // line 1 `{"a": 1}` is 8 bytes + newline = 9; line 2 starts with `{"b": "` (7 bytes): the 0xFF is at 9 + 7 = 16
    const text = Buffer.concat([Buffer.from('{"a": 1}\n{"b": "'), Buffer.from([0xff]), Buffer.from('"}\n')]);
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, text);
    await expect(readJsonlAll(file)).rejects.toThrow(`${file}: invalid UTF-8 at byte offset 16 (`);
    const gz = join(dir, 'bad.jsonl.gz');
    writeFileSync(gz, gzipSync(text));
    await expect(readJsonlAll(gz)).rejects.toThrow(
      `${gz}: invalid UTF-8 at byte offset 16 of the decompressed content`,
    );
  });

  it('allowInvalidUtf8 replaces with U+FFFD and reports the count', async () => {
    const file = join(dir, 'two-bad.jsonl');
    // two invalid sequences: a lone continuation byte 0x80 and a truncated 3-byte sequence E2 82 before `"`
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('{"a": "x'),
        Buffer.from([0x80]),
        Buffer.from('"}\n{"a": "'),
        Buffer.from([0xe2, 0x82]),
        Buffer.from('"}\n'),
      ]),
    );
    const reports: InvalidUtf8Report[] = [];
    const rows = await readJsonlAll(file, undefined, { allowInvalidUtf8: true, onInvalidUtf8: (r) => reports.push(r) });
    expect(rows).toEqual([{ a: 'x\ufffd' }, { a: '\ufffd' }]);
    // the first sequence starts after `{"a": "x` (8 bytes)
    expect(reports).toEqual([{ file, replaced: 2, firstOffset: 8 }]);
    const json = join(dir, 'latin1-ok.json');
    writeFileSync(json, latin1);
    const jsonReports: InvalidUtf8Report[] = [];
    expect(
      await readJson(json, undefined, { allowInvalidUtf8: true, onInvalidUtf8: (r) => jsonReports.push(r) }),
    ).toEqual({ a: 'caf\ufffd' });
    expect(jsonReports).toEqual([{ file: json, replaced: 1, firstOffset: 10 }]);
  });

  it('valid UTF-8 (multi-byte, U+FFFD itself, BOM) passes unchanged', async () => {
    const file = join(dir, 'ok.json');
    writeFileSync(file, '\ufeff{"a": "Zürich – 東京 😀 \ufffd"}');
    expect(await readJson(file)).toEqual({ a: 'Zürich – 東京 😀 \ufffd' });
  });

  it('Utf8Validator counts exactly the replacements of the WHATWG decoder, for any byte soup and any chunking', () => {
    let seed = 12345;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const interesting = [
      0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5,
      0xff,
    ];
    for (let t = 0; t < 500; t++) {
      const bytes = Buffer.from(
        Array.from({ length: 1 + Math.floor(rnd() * 24) }, () =>
          rnd() < 0.7 ? interesting[Math.floor(rnd() * interesting.length)]! : Math.floor(rnd() * 256),
        ),
      );
      const decoded = new TextDecoder('utf-8').decode(bytes);
      // replacements = U+FFFD in the output minus the U+FFFD encoded validly (EF BF BD) in the input
      const expected = [...decoded].filter((c) => c === '\ufffd').length - countValidFffd(bytes);
      const v = new Utf8Validator();
      const cut = Math.floor(rnd() * bytes.length);
      v.push(bytes.subarray(0, cut));
      v.push(bytes.subarray(cut));
      v.end();
      expect(v.invalid, `bytes ${bytes.toString('hex')}`).toBe(expected);
      let fatalOk = true;
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        fatalOk = false;
      }
      expect(v.invalid === 0).toBe(fatalOk);
    }
  });
});

function countValidFffd(bytes: Uint8Array): number {
  // EF BF BD is always a complete valid sequence when it appears at a sequence boundary; count those by decoding
  // each candidate position strictly.
  let n = 0;
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] === 0xef && bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) {
      // it is a real U+FFFD only if the decoder is at a boundary there: decode the prefix and check it ended cleanly
      const prefix = new TextDecoder('utf-8').decode(bytes.subarray(0, i + 3));
      const before = new TextDecoder('utf-8').decode(bytes.subarray(0, i));
      if (prefix === `${before}\ufffd`) {
        // could also be a replacement of an invalid prefix ending; accept only if bytes[0..i) decode completely
        const v = new Utf8Validator();
        v.push(bytes.subarray(0, i));
        if ((v as unknown as { needed: number }).needed === 0) n++;
      }
    }
  }
  return n;
}

const WRITERS = [['writeFileAtomic', writeFileAtomic]] as const;

describe.each(WRITERS)('stale temporary files: %s', (writer, write) => {
  it('the first atomic write into a directory removes the temporary files of dead processes, not of live ones', async () => {
    const out = join(dir, `stale-${writer}`);
    mkdirSync(out, { recursive: true });
    // a pid that surely belongs to no process any more: a child that has exited
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    const stale = `.results.json.${dead}.1764000000000.0.tmp`;
    const staleNoCounter = `.results.json.${dead}.1764000000000.tmp`;
    const live = `.results.json.${process.pid}.1764000000000.7.tmp`;
    for (const name of [stale, staleNoCounter, live, 'keep.tmp', '.other']) writeFileSync(join(out, name), 'x');
    await write(join(out, 'results.json'), '{}');
    expect(readdirSync(out).sort()).toEqual(['.other', live, 'keep.tmp', 'results.json'].sort());
    // removeStaleTempFiles on its own reports what it removed
    writeFileSync(join(out, stale), 'x');
    expect(await removeStaleTempFiles(out)).toEqual([stale]);
  });
});

describe.each(WRITERS)('filesystem errors name the path: %s', (name, write) => {
  it('ENOTDIR: an output directory under a file', async () => {
    const file = join(dir, `plain-file-${name}`);
    writeFileSync(file, 'x');
    const error = await write(join(file, 'sub', 'out.json'), '{}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileSystemError);
    expect(error).toMatchObject({ code: 'fs_error', path: join(file, 'sub') });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^cannot create directory ${join(file, 'sub')}.*: (a component of the path is not a directory \\(ENOTDIR\\)|already exists and is not a directory \\(EEXIST\\))$`,
      ),
    );
  });

  it('EISDIR: the output path is a directory', async () => {
    const target = join(dir, `a-directory-${name}`);
    mkdirSync(target, { recursive: true });
    const error = await write(target, '{}').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'fs_error', path: target, errno: 'EISDIR' });
    expect((error as Error).message).toBe(`cannot write ${target}: is a directory, expected a file (EISDIR)`);
    // nothing half-written is left behind
    expect(readdirSync(dir).filter((n) => n.startsWith(`.a-directory-${name}`))).toEqual([]);
  });
});

describe('FileSystemError', () => {
  it('FileSystemError.from leaves other errors alone', () => {
    const plain = new Error('not a system error');
    expect(FileSystemError.from(plain, '/x')).toBe(plain);
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      path: '/data/out.json',
    });
    expect(FileSystemError.from(enospc)).toMatchObject({
      code: 'fs_error',
      path: '/data/out.json',
      message: 'cannot write /data/out.json: no space left on the device (ENOSPC)',
    });
  });
});
