import type { RunMetric } from './schema';

/** What {@link formatMetricValue} needs of a metric: its unit and precision as the run record declares them. */
export type MetricFormat = Pick<RunMetric, 'unit' | 'digits'>;

const DEFAULT_DIGITS: Record<string, number> = { '%': 1, ratio: 1, BLEU: 2, kappa: 3, count: 0 };

/** Decimals a metric is shown with: its declared `digits`, else its unit's default. */
export function metricDigits(format: MetricFormat = {}): number {
  return format.digits ?? DEFAULT_DIGITS[format.unit ?? ''] ?? 3;
}

/** True when a metric's value is shown in percent (a `%` value as it is, a `ratio` times 100). */
export function isPercentMetric(format: MetricFormat = {}): boolean {
  return format.unit === '%' || format.unit === 'ratio';
}

/** The value on the scale it is shown on: a `ratio` in percent, anything else as recorded. */
export function displayScale(value: number, format: MetricFormat = {}): number {
  return format.unit === 'ratio' ? value * 100 : value;
}

function fixed(x: number, digits: number): string {
  const text = x.toFixed(digits);
  // -0.0 reads as a sign that means nothing
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/**
 * A metric's value as the field writes it: `60.1` for mwzeval's Success (`%`), `53.3%` for a ratio of 0.5333,
 * `18.42` for BLEU, `0.412` for a kappa, `5,843` for a count. `null` is an empty string. No float artefact can show:
 * every value goes through `toFixed` at the declared precision.
 */
export function formatMetricValue(value: number | null | undefined, format: MetricFormat = {}): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '';
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '-∞';
  if (format.unit === 'count' && format.digits === undefined)
    return Math.round(value).toLocaleString('en-US', { maximumFractionDigits: 0 });
  const text = fixed(displayScale(value, format), metricDigits(format));
  return format.unit === 'ratio' ? `${text}%` : text;
}

/**
 * A difference between two values of one metric, signed, on the metric's display scale: `+17.5` points for a `%`
 * metric, `+2.1` points for a ratio (percentage points, no `%` sign), `-0.35` for BLEU.
 */
export function formatMetricDifference(delta: number | null | undefined, format: MetricFormat = {}): string {
  if (delta === null || delta === undefined || Number.isNaN(delta)) return '';
  const text = fixed(displayScale(delta, format), format.unit === 'count' ? 0 : metricDigits(format));
  return text.startsWith('-') || /^0(\.0*)?$/.test(text) ? text : `+${text}`;
}
