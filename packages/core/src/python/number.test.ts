import { describe, expect, it } from 'vitest';
import { pythonFloatRepr, pythonRound } from './number';

describe('pythonRound', () => {
  it('rounds the exact binary value half to even (cgt spec 5.2 examples)', () => {
    expect(pythonRound(0.0625, 3)).toBe(0.062);
    expect(pythonRound(0.4375, 3)).toBe(0.438);
    expect(pythonRound(2.675, 2)).toBe(2.67); // 2.675 is 2.67499999... in binary
    expect(pythonRound(0.5)).toBe(0);
    expect(pythonRound(1.5)).toBe(2);
    expect(pythonRound(1234.5, -1)).toBe(1230);
  });
});

describe('pythonFloatRepr', () => {
  it('formats like Python repr', () => {
    expect(pythonFloatRepr(0.503672627787518)).toBe('0.503672627787518');
    expect(pythonFloatRepr(1)).toBe('1.0');
    expect(pythonFloatRepr(0)).toBe('0.0');
    expect(pythonFloatRepr(1e-5)).toBe('1e-05');
    expect(pythonFloatRepr(0.0001)).toBe('0.0001');
    expect(pythonFloatRepr(1e16)).toBe('1e+16');
    expect(pythonFloatRepr(1e15)).toBe('1000000000000000.0');
    expect(pythonFloatRepr(1.5e-7)).toBe('1.5e-07');
    expect(pythonFloatRepr(-2.5)).toBe('-2.5');
    expect(pythonFloatRepr(Number.NaN)).toBe('nan');
  });

  it('switches notation exactly where Python does (the edges of the direct path for 1e-4 <= |x| < 1e16)', () => {
    // repr(float.fromhex('0x1.a36e2eb1c432bp-14')): the double just below 0.0001 takes the exponent form
    expect(pythonFloatRepr(9.999999999999999e-5)).toBe('9.999999999999999e-05');
    expect(pythonFloatRepr(-0.0001)).toBe('-0.0001');
    // the largest double below 1e16 is 9999999999999998 (even integers only above 2**53): integral, fixed
    expect(pythonFloatRepr(9999999999999998)).toBe('9999999999999998.0');
    expect(pythonFloatRepr(-1e16)).toBe('-1e+16');
    expect(pythonFloatRepr(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(pythonFloatRepr(123456789012345.6)).toBe('123456789012345.6');
    expect(pythonFloatRepr(2 ** 53)).toBe('9007199254740992.0');
  });
});
