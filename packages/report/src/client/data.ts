// The embedded data and what every part of the page asks of it.
import type { RunItem } from '@eval/core';
import type { Child } from './dom';
import { isObj } from './dom';
import type { PageData, PageMetric, PageRun } from './model';

export type Item = RunItem;

export function readPageData(): PageData {
  const raw = document.getElementById('report-data')?.textContent ?? '{}';
  return JSON.parse(raw) as PageData;
}

/** An item's detail (an empty object when it has none or one of another shape). */
export const det = (item: Item): Record<string, unknown> => (isObj(item.detail) ? item.detail : {});

/** An item value by name, case-insensitive. */
export function valueOf(item: Item, ...names: string[]): RunItem['values'][string] | undefined {
  for (const n of names) {
    for (const k of Object.keys(item.values ?? {})) if (k.toLowerCase() === n.toLowerCase()) return item.values[k];
  }
  return undefined;
}

/** Headline metrics (no `part`) of a run. */
export const headline = (run: PageRun): PageMetric[] => run.metrics.filter((m) => m.part === null);
/** Breakdown figures (with `part`) of a run. */
export const breakdown = (run: PageRun): PageMetric[] => run.metrics.filter((m) => m.part !== null);

/** What a benchmark's view contributes: item facets for the filters, what counts as failing, and the drill-down. */
export interface View {
  /** Facet name -> the item's values (e.g. `domain` -> its goal domains). */
  facets(item: Item): Record<string, string[]>;
  failing(item: Item): boolean;
  /** One line: why the item failed, or what it is. */
  summary(item: Item): string;
  /**
   * The drill-down of one item: `items[k]` is the item in run k (undefined when that run lacks it), so a view can show
   * runs side by side (MultiWOZ's turns); `labels[k]` names run k.
   */
  detail(items: Array<Item | undefined>, labels: string[]): Child[];
  /** Detail keys the view shows; the rest is listed under "Other detail". */
  consumed: string[];
  /** Charts the view adds from item detail the package recorded (CGT's curves), beside the breakdown figures. */
  charts?(runs: PageRun[]): HTMLElement[];
}

export function genericFailing(item: Item): boolean {
  return Boolean(item.error) || Object.values(item.values ?? {}).some((v) => v === false);
}
