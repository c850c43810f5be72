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
});
