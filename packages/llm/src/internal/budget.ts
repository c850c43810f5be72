import { InputError } from '@eval/core';
import { BudgetExceededError } from '../errors';
import { costOf } from '../prices';
import { formatCost } from '../progress';
import type { CanonicalRequest } from '../request';
import { countPromptTokens } from '../tokens';
import type { Usage } from './usage';

/** The budget (`maxCost`): spent (committed) plus reserved (calls in flight, at their expected cost). */
export class Budget {
  private spent = 0;
  private reserved = 0;
  /** Reservations not settled yet (counted: the sum of floats does not come back to exactly 0). */
  private reservations = 0;
  /** Set once a call did not fit: no new item starts. */
  hit = false;
  /** Calls waiting for reservations in flight to settle before they know whether they fit the budget. */
  private settleWaiters: Array<() => void> = [];

  constructor(
    readonly maxCost: number | undefined,
    private readonly usage: Usage,
  ) {}

  async estimateCost(req: CanonicalRequest, label: string, factor = 1): Promise<number> {
    const p = this.usage.price(req.model);
    if (!p) return 0;
    const promptTokens = await countPromptTokens(req);
    return costOf(p, { promptTokens, completionTokens: this.usage.expectedCompletionTokens(req, label) }, factor);
  }

  /**
   * Reserves the expected cost of a call. When it does not fit next to the calls in flight, it waits for them to
   * settle (`wait`, the default) and tries again; it throws only when it does not fit with nothing in flight, so a
   * run spends close to its budget before it stops.
   */
  async reserve(req: CanonicalRequest, label: string, factor = 1, wait = true): Promise<number> {
    const max = this.maxCost;
    if (max === undefined) return 0;
    if (!this.usage.price(req.model)) {
      throw new InputError(`--max-cost needs the price of model "${req.model}", which is not in the price table`, {
        field: ['model'],
      });
    }
    const est = await this.estimateCost(req, label, factor);
    for (;;) {
      if (this.reservations === 0) this.reserved = 0;
      if (!this.hit && this.spent + this.reserved + est <= max) {
        this.reserved += est;
        if (est > 0) this.reservations++;
        return est;
      }
      if (!this.hit && wait && this.reservations > 0) {
        await new Promise<void>((r) => this.settleWaiters.push(r));
        continue;
      }
      this.hit = true;
      throw new BudgetExceededError(
        `budget: spent ${formatCost(this.spent)} (+${formatCost(this.reserved)} in flight); the next call (~${formatCost(est)}) could pass --max-cost ${formatCost(max)}`,
      );
    }
  }

  settle(reservation: number, actual: number | undefined): void {
    this.reserved -= reservation;
    if (reservation > 0) this.reservations = Math.max(0, this.reservations - 1);
    if (actual !== undefined) this.spent += actual;
    if (this.settleWaiters.length > 0) {
      const waiters = this.settleWaiters;
      this.settleWaiters = [];
      for (const w of waiters) w();
    }
  }
}
