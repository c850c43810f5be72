import { describe, expect, it } from 'vitest';
import {
  ChecksumError,
  ERROR_CODES,
  EvalError,
  errorCategory,
  FileSystemError,
  InputError,
  ResourceMissingError,
} from './errors';

describe('error categories', () => {
  it('each class has its category; a plain EvalError takes its code’s, an unknown code is internal', () => {
    expect(new InputError('bad', { code: 'invalid_json' }).category).toBe('input');
    expect(new FileSystemError('/x', 'cannot write /x').category).toBe('filesystem');
    expect(new ResourceMissingError('r', 'not fetched').category).toBe('configuration');
    expect(new ChecksumError('mismatch').category).toBe('evaluation');
    expect(new EvalError('input_mismatch', 'x').category).toBe('input');
    expect(new EvalError('llm_call_failed', 'x').category).toBe('evaluation');
    expect(new EvalError('something_new', 'x').category).toBe('internal');
    expect(new EvalError('something_new', 'x', { category: 'configuration' }).category).toBe('configuration');
  });

  it('errorCategory: EvalErrors by category, node system errors are filesystem, anything else internal', () => {
    const eacces = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES', path: '/x' });
    expect(errorCategory(eacces)).toBe('filesystem');
    expect(errorCategory(new TypeError('x is undefined'))).toBe('internal');
    expect(errorCategory('a string')).toBe('internal');
    expect(errorCategory(new InputError('bad'))).toBe('input');
  });

  it('every code of the table names a category', () => {
    const categories = new Set(['input', 'configuration', 'filesystem', 'evaluation', 'internal']);
    for (const [code, category] of Object.entries(ERROR_CODES)) expect(categories.has(category), code).toBe(true);
  });
});

describe('isInstance: a marker per class, recognised across duplicated package copies', () => {
  it('tells the classes apart', () => {
    const input = new InputError('bad');
    const fs = new FileSystemError('/x', 'cannot write /x');
    expect([EvalError.isInstance(input), InputError.isInstance(input), FileSystemError.isInstance(input)]).toEqual([
      true,
      true,
      false,
    ]);
    expect([EvalError.isInstance(fs), InputError.isInstance(fs), FileSystemError.isInstance(fs)]).toEqual([
      true,
      false,
      true,
    ]);
    expect(EvalError.isInstance(new Error('plain'))).toBe(false);
    expect(ResourceMissingError.isInstance(new ResourceMissingError('r', 'm'))).toBe(true);
    expect(ChecksumError.isInstance(new EvalError('checksum_mismatch', 'm'))).toBe(false);
  });

  it('an error made by another copy of the package (same Symbol.for markers, another class) is recognised', () => {
    // what a second copy of @eval/core would construct: an object of another class carrying the registry symbols
    const copy = Object.assign(new Error('bad'), {
      [Symbol.for('@eval/core.error')]: true,
      [Symbol.for('@eval/core.input-error')]: true,
      code: 'input_error',
      category: 'input',
    });
    expect(copy instanceof InputError).toBe(false);
    expect(InputError.isInstance(copy)).toBe(true);
    expect(errorCategory(copy)).toBe('input');
  });
});
