import { describe, expect, it } from 'vitest';
import { formatMetricDifference, formatMetricValue, metricDigits } from './format';

describe('formatMetricValue', () => {
  it('writes each unit as its field does', () => {
    // mwzeval prints Inform/Success with one decimal, BLEU with two; kappa is read to three decimals
    expect(formatMetricValue(60.10101010101011, { unit: '%' })).toBe('60.1');
    expect(formatMetricValue(18.4213, { unit: 'BLEU' })).toBe('18.42');
    expect(formatMetricValue(0.41234, { unit: 'kappa' })).toBe('0.412');
    // a ratio is shown in percent: 0.5333... -> 53.3%, 0.30000000000000004 -> 30.0%
    expect(formatMetricValue(0.5333333333333333, { unit: 'ratio' })).toBe('53.3%');
    expect(formatMetricValue(0.30000000000000004, { unit: 'ratio' })).toBe('30.0%');
    expect(formatMetricValue(5843, { unit: 'count' })).toBe('5,843');
    expect(formatMetricValue(6.612345)).toBe('6.612');
  });
  it('declared digits win over the unit default', () => {
    expect(formatMetricValue(0.5333333333333333, { unit: 'ratio', digits: 2 })).toBe('53.33%');
    expect(formatMetricValue(12.300000000000011, { unit: '%', digits: 2 })).toBe('12.30');
    expect(metricDigits({ unit: 'BLEU', digits: 4 })).toBe(4);
  });
  it('null, NaN and negative zero', () => {
    expect(formatMetricValue(null, { unit: '%' })).toBe('');
    expect(formatMetricValue(Number.NaN)).toBe('');
    expect(formatMetricValue(-0.00001, { unit: '%' })).toBe('0.0');
  });
});

describe('formatMetricDifference', () => {
  it('signed, on the display scale, in points for percentages', () => {
    expect(formatMetricDifference(17.5, { unit: '%' })).toBe('+17.5');
    expect(formatMetricDifference(-0.021, { unit: 'ratio' })).toBe('-2.1');
    expect(formatMetricDifference(15.099999999999994, { unit: '%' })).toBe('+15.1');
    expect(formatMetricDifference(0, { unit: 'BLEU' })).toBe('0.00');
    expect(formatMetricDifference(-3, { unit: 'count' })).toBe('-3');
  });
});
