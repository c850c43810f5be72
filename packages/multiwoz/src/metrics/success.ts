/**
 * Inform and Success (`get_success`, `get_dialog_success`, `get_domain_estimates_from_state`).
 * Spec: shared/specs/multiwoz.md § 7.
 */
import { pythonRound } from '@eval/core/python';
import type { VenueDatabase } from '../internal/database';
import type { BeliefState } from '../internal/normalize';

/** A user goal as in mwzeval's goals.json: domain -> informable constraints, requestable slots (upper case), booking. */
export type Goal = Record<string, { informable: Record<string, string>; requestable: string[]; booking?: unknown }>;

export const REQUESTABLE_SLOTS = ['PHONE', 'ADDRESS', 'POST', 'REFERENCE', 'TRAINID'] as const;

const VENUE_DOMAINS = new Set(['restaurant', 'hotel', 'attraction']);
const DB_DOMAINS = new Set(['restaurant', 'hotel', 'attraction', 'train']);
const AUTO_MATCHED = new Set(['taxi', 'police', 'hospital']);

const EMPTY_SLOTS: Readonly<Record<string, string>> = Object.freeze({});

/** No venue offered (yet): the reference's `[]`. */
const NO_OFFER: readonly string[] = Object.freeze([]);

/** `len(d)` of a dict: the number of own enumerable string keys (`Object.keys(o).length`). */
function ownKeyCount(o: object): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k)) n++;
  return n;
}

/**
 * `get_domain_estimates_from_state(dialog)`: the active domain of each turn, estimated from the changes of the state,
 * with the reference's quirks (a turn without changes before any domain keeps the previous state stale; ties go to
 * the first domain in state order).
 */
export function estimateActiveDomains(states: readonly BeliefState[]): string[][] {
  const out: string[][] = [];
  let current: string | null = null;
  let oldState: BeliefState = {};
  let oldChanged: string[] = [];
  const own = Object.prototype.hasOwnProperty;
  for (let s = 0; s < states.length; s++) {
    const state = states[s]!;
    const changed: string[] = [];
    // (for-in over own keys: the order of Object.keys, without the arrays)
    for (const domain in state) {
      if (!own.call(state, domain)) continue;
      const now = state[domain]!;
      const before = own.call(oldState, domain) ? oldState[domain]! : EMPTY_SLOTS;
      for (const slot in now) {
        if (!own.call(now, slot)) continue;
        if (!own.call(before, slot) || before[slot] !== now[slot]) {
          changed.push(domain);
          break;
        }
      }
    }
    if (changed.length === 0) {
      if (current === null) {
        out.push([]);
        continue;
      }
      if (oldChanged.length > 1) {
        const cur: string = current;
        oldChanged = oldChanged.filter((x) => Object.hasOwn(state, x) && x !== cur);
        if (oldChanged.length > 0) current = oldChanged[0]!;
      }
    } else if (current === null || !changed.includes(current)) {
      let best = changed[0]!;
      let bestLen = ownKeyCount(state[best]!);
      for (let c = 1; c < changed.length; c++) {
        const d = changed[c]!;
        const len = ownKeyCount(state[d]!);
        if (len > bestLen) {
          best = d;
          bestLen = len;
        }
      }
      current = best;
    }
    oldState = state;
    oldChanged = changed;
    out.push([current]);
  }
  return out;
}

/** Why a domain failed, beyond the reference's booleans. */
export interface DomainOutcome {
  /** Inform for this domain. */
  inform: boolean;
  /** Success for this domain (null when the dialogue's Inform failed: the reference does not compute it). */
  success: boolean | null;
  /** Venues the system offered (database ids / train ids, last offer), or "MATCHED" when matched by rule. */
  offered: string[] | 'MATCHED';
  /** Goal venues the offer was compared with (only when it was compared). */
  goalVenues?: string[];
  /** Requestable slots of the goal (PHONE, ADDRESS, POST, REFERENCE, TRAINID). */
  requested: string[];
  /** Requested slots the system provided. */
  provided: string[];
  /** Requested slots never provided (why Success failed). */
  missing: string[];
  /** Human-readable reason when Inform or Success failed. */
  reason?: string;
}

export interface DialogSuccess {
  /** `match` of the reference: domain -> Inform, plus `total`. */
  match: Record<string, boolean>;
  /** `success` of the reference: domain -> Success, plus `total`; `{}` when Inform failed. */
  success: Record<string, boolean>;
  domains: Record<string, DomainOutcome>;
}

/**
 * The venues of a memoised query result as a set, built once per result: equal queries share one array (see
 * {@link VenueDatabase.sharedQuery}), and offers are compared with the same few results again and again.
 */
const venueSets = new WeakMap<readonly string[], ReadonlySet<string>>();
function venueSet(venues: readonly string[]): ReadonlySet<string> {
  let set = venueSets.get(venues);
  if (set === undefined) venueSets.set(venues, (set = new Set(venues)));
  return set;
}

/**
 * `get_dialog_success(goal, booked, utterances, states, domain_estimates, db)` for one dialogue, with the outcome of
 * each domain. `utterances` are normalised responses; the turns used are the shortest of the four lists.
 */
export function dialogSuccess(
  goal: Goal,
  booked: readonly (readonly string[])[],
  utterances: readonly string[],
  states: readonly BeliefState[],
  activeDomains: readonly (readonly string[])[],
  db: VenueDatabase,
): DialogSuccess {
  // per goal domain, by its position in the goal (a dialogue has a handful)
  const goalDomains = Object.keys(goal);
  const n = goalDomains.length;
  const requested: Array<Set<string>> = [];
  const offered: Array<readonly string[] | 'MATCHED'> = [];
  const provided: Array<Set<string>> = [];
  const namedTurns: number[] = []; // turns naming a venue while the domain was active
  for (let g = 0; g < n; g++) {
    requested.push(new Set(goal[goalDomains[g]!]!.requestable));
    offered.push(NO_OFFER);
    provided.push(new Set<string>());
    namedTurns.push(0);
  }
  const turns = Math.min(utterances.length, states.length, booked.length, activeDomains.length);
  for (let t = 0; t < turns; t++) {
    const utt = utterances[t]!;
    const state = states[t]!;
    const bookedNow = booked[t]!;
    const doms = activeDomains[t]!;
    for (let g = 0; g < n; g++) {
      const d = goalDomains[g]!;
      if (!doms.includes(d)) continue;
      if ((utt.includes('NAME') && VENUE_DOMAINS.has(d)) || (utt.includes('TRAINID') && d === 'train')) {
        namedTurns[g]!++;
        // (the database's memoised arrays, shared: equal queries give the same array; copied below when reported)
        const venues = Object.hasOwn(state, d) ? db.sharedQuery(d, state[d]!) : NO_OFFER;
        const prev = offered[g] as readonly string[];
        if (prev.length === 0) offered[g] = venues;
        else if (prev !== venues) {
          const now = venueSet(venues);
          for (let i = 0; i < prev.length; i++) {
            if (!now.has(prev[i]!)) {
              offered[g] = venues;
              break;
            }
          }
        }
      }
      for (let q = 0; q < REQUESTABLE_SLOTS.length; q++) {
        const r = REQUESTABLE_SLOTS[q]!;
        if (!utt.includes(r)) continue;
        if (r === 'REFERENCE') {
          if (bookedNow.includes(d)) provided[g]!.add('REFERENCE');
        } else provided[g]!.add(r);
      }
    }
  }
  for (let g = 0; g < n; g++) {
    const d = goalDomains[g]!;
    if (Object.hasOwn(goal[d]!.informable, 'name')) offered[g] = 'MATCHED';
    if (AUTO_MATCHED.has(d)) offered[g] = 'MATCHED';
    if (d === 'train') {
      const o = offered[g]!;
      if (o !== 'MATCHED' && o.length === 0 && !requested[g]!.has('TRAINID')) offered[g] = 'MATCHED';
    }
  }
  const match: Record<string, boolean> = {};
  const domains: Record<string, DomainOutcome> = {};
  for (let g = 0; g < n; g++) {
    const d = goalDomains[g]!;
    const o = offered[g]!;
    let m = false;
    let goalVenues: string[] | undefined;
    let reason: string | undefined;
    if (o === 'MATCHED') m = true;
    else if (DB_DOMAINS.has(d) && o.length > 0) {
      const shared = db.sharedQuery(d, goal[d]!.informable);
      const goalSet = venueSet(shared);
      goalVenues = shared.slice();
      let wrong: string[] | undefined;
      for (let i = 0; i < o.length; i++) {
        if (goalSet.has(o[i]!)) continue;
        wrong ??= [];
        if (!wrong.includes(o[i]!)) wrong.push(o[i]!);
      }
      m = wrong === undefined;
      if (wrong !== undefined) reason = `offered venues not matching the goal: ${wrong.join(', ')}`;
    } else if (!DB_DOMAINS.has(d)) {
      reason = 'no venue offered';
    } else if (namedTurns[g] === 0) {
      reason = `no venue offered: no ${d === 'train' ? 'TRAINID' : 'NAME'} placeholder in a turn where the domain was active`;
    } else {
      reason = `no venue offered: the state matched no database entry in the ${namedTurns[g]} turn(s) naming one`;
    }
    match[d] = m;
    const req = requested[g]!;
    const prov = provided[g]!;
    const requestedList = [...req];
    const providedList: string[] = [];
    for (const s of prov) if (req.has(s)) providedList.push(s);
    const missing: string[] = [];
    for (let i = 0; i < requestedList.length; i++) if (!prov.has(requestedList[i]!)) missing.push(requestedList[i]!);
    const offers = o === 'MATCHED' ? 'MATCHED' : o.slice();
    // (keys in the order the per-dialogue output has always shown)
    const outcome: DomainOutcome = goalVenues
      ? {
          inform: m,
          success: null,
          offered: offers,
          goalVenues,
          requested: requestedList,
          provided: providedList,
          missing,
        }
      : { inform: m, success: null, offered: offers, requested: requestedList, provided: providedList, missing };
    if (reason) outcome.reason = reason;
    domains[d] = outcome;
  }
  let total = true;
  for (let g = 0; g < n; g++) if (!match[goalDomains[g]!]) total = false;
  match.total = total;
  const success: Record<string, boolean> = {};
  if (match.total) {
    let all = true;
    for (let g = 0; g < n; g++) {
      const d = goalDomains[g]!;
      const req = requested[g]!;
      let k = 0;
      for (const s of provided[g]!) if (req.has(s)) k++;
      const ok = k === req.size;
      success[d] = ok;
      if (!ok) all = false;
      domains[d]!.success = ok;
      if (!ok) domains[d]!.reason = `requested slot(s) not provided: ${domains[d]!.missing.join(', ')}`;
    }
    success.total = all;
  }
  return { match, success, domains };
}

/** Per-domain and total Inform/Success rates (percent, rounded to 1 decimal as Python's `round(x, 1)`). */
export interface SuccessResult {
  inform: Record<string, number>;
  success: Record<string, number>;
}

/** The aggregation of `get_success` over dialogues (§ 7.4). */
export function aggregateSuccess(results: Iterable<Pick<DialogSuccess, 'match' | 'success'>>): SuccessResult {
  const total = new Map<string, number>();
  const inform = new Map<string, number>();
  const succ = new Map<string, number>();
  for (const { match, success } of results) {
    const keys = new Set([...Object.keys(match), ...Object.keys(success)]);
    for (const d of keys) {
      total.set(d, (total.get(d) ?? 0) + 1);
      inform.set(d, (inform.get(d) ?? 0) + (match[d] ? 1 : 0));
      succ.set(d, (succ.get(d) ?? 0) + (success[d] ? 1 : 0));
    }
  }
  const rate = (k: number, n: number) => pythonRound((100 * k) / n, 1);
  return {
    inform: Object.fromEntries([...inform].map(([d, k]) => [d, rate(k, total.get(d)!)])),
    success: Object.fromEntries([...succ].map(([d, k]) => [d, rate(k, total.get(d)!)])),
  };
}
