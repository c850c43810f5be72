/**
 * mwzeval's normalisation (mwzeval/normalization.py): responses (slot placeholders, `-s`/`-ly` removal, Moses
 * round trip), state slot names and values, time strings. Spec: shared/specs/multiwoz.md § 4.
 */
import { mosesDetokenize, mosesTokenize } from './moses/moses';
import {
  PY_WHITESPACE as PY_WS,
  PythonValueError,
  pyInt,
  pyIntNumber,
  pyIsDigit,
  pyLen,
  pySlice,
  pyStrip,
  pyZfill,
} from '@eval/core/python';

/**
 * `"2022"`: mwzeval at commit 7f19ee0 (every published number was made with it; the default).
 * `"2023"`: the latest master (cd3f0ee): three more name rules, incl. `bed and breakfast` -> `b and b`.
 */
export type NormalizationVersion = '2022' | '2023';

const SLOT_NAME_MAPPING: Record<string, string[]> = {
  ADDRESS: [
    'address',
    'attraction_address',
    'hospital_address',
    'hotel_address',
    'police_address',
    'restaurant_address',
    'value_address',
  ],
  AREA: ['area', 'value_area', 'attraction_area', 'restaurant_area', 'hotel_area'],
  TIME: [
    'booktime',
    'value_time',
    'time',
    'duration',
    'value_duration',
    'train_duration',
    'arriveby',
    'taxi_arriveby',
    'value_arrive',
    'arrive by',
    'train_arriveby',
    'leaveat',
    'value_leave',
    'leave at',
    'train_leaveat',
    'train_leave',
    'train_arrive',
    'taxi_leaveat',
  ],
  DAY: ['day', 'value_day', 'bookday', 'train_day'],
  PLACE: [
    'destination',
    'value_destination',
    'departure',
    'value_departure',
    'value_place',
    'train_departure',
    'train_destination',
    'taxi_destination',
    'taxi_departure',
  ],
  FOOD: ['food', 'value_food', 'restaurant_food'],
  NAME: ['name', 'attraction_name', 'hospital_name', 'hotel_name', 'police_name', 'restaurant_name', 'value_name'],
  PHONE: [
    'phone',
    'attraction_phone',
    'hospital_phone',
    'hotel_phone',
    'police_phone',
    'restaurant_phone',
    'taxi_phone',
    'value_phone',
  ],
  POST: [
    'postcode',
    'attraction_postcode',
    'hospital_postcode',
    'hotel_postcode',
    'restaurant_postcode',
    'value_postcode',
    'police_postcode',
  ],
  PRICE: [
    'price',
    'value_price',
    'entrancefee',
    'entrance fee',
    'train_price',
    'attraction_entrancefee',
    'pricerange',
    'value_pricerange',
    'price range',
    'restaurant_pricerange',
    'hotel_pricerange',
    'attraction_pricerange',
    'attraction_price',
  ],
  REFERENCE: [
    'ref',
    'attraction_reference',
    'hotel_reference',
    'restaurant_reference',
    'train_reference',
    'value_reference',
    'reference',
  ],
  COUNT: [
    'stars',
    'value_stars',
    'hotel_stars',
    'bookstay',
    'value_stay',
    'stay',
    'bookpeople',
    'value_people',
    'people',
    'choice',
    'value_choice',
    'value_count',
    'attraction_choice',
    'hotel_choice',
    'restaurant_choice',
    'train_choice',
  ],
  TYPE: [
    'type',
    'taxi_type',
    'taxi_car',
    'value_type',
    'value_car',
    'car',
    'restaurant_type',
    'hotel_type',
    'attraction_type',
  ],
  TRAINID: ['trainid', 'train_id', 'value_id', 'id', 'train', 'train_trainid'],
  INTERNET: ['internet', 'hotel_internet'],
  PARKING: ['parking', 'hotel_parking'],
  ID: ['hospital_id', 'attraction_id', 'restaurant_id'],
  DEPARTMENT: ['value_department', 'department', 'hospital_department'],
  OPEN: ['openhours'],
};

const REVERSE_SLOT_NAME = new Map<string, string>();
for (const [canonical, names] of Object.entries(SLOT_NAME_MAPPING))
  for (const n of names) REVERSE_SLOT_NAME.set(n, canonical);

/** The canonical placeholder names a normalised response can contain. */
export const CANONICAL_SLOT_NAMES: readonly string[] = Object.keys(SLOT_NAME_MAPPING);

/**
 * `normalize_slot_name`: the canonical upper-case name of a placeholder, or `""` for an unknown name (the reference
 * prints a warning and removes the placeholder); `onUnknown` receives the unknown name.
 */
export function normalizeSlotName(name: string, onUnknown?: (name: string) => void): string {
  const lower = name.toLowerCase();
  const canonical = REVERSE_SLOT_NAME.get(lower);
  if (canonical === undefined) {
    onUnknown?.(lower);
    return '';
  }
  return canonical;
}

// \[([\w\s\d]+)\](es|s|-s|-es|) with Python's Unicode \w, \s, \d
const SLOT_RE = new RegExp(`\\[([\\p{L}\\p{N}_${PY_WS}]+)\\](es|s|-s|-es|)`, 'gu');

export interface NormalizeResponseOptions {
  /** Called with each unknown placeholder name (lower-cased), every time one is met. */
  onUnknownSlot?: (name: string) => void;
}

/** `normalize_response`: lower-case, canonical placeholders, `-s`/`-ly` removal, Moses tokenize + detokenize. */
export function normalizeResponse(response: string, options: NormalizeResponseOptions = {}): string {
  let r = response.toLowerCase();
  r = r.replace(SLOT_RE, (_m, name: string) => normalizeSlotName(name, options.onUnknownSlot));
  if (r.includes('-s')) r = r.split('-s').join('');
  if (r.includes('-ly')) r = r.split('-ly').join('');
  return mosesDetokenize(mosesTokenize(r));
}

/** State slot name normalisation (§ 4.2): lower-case, spaces removed, `arriveby` -> `arrive`, `leaveat` -> `leave`. */
export function normalizeStateSlotName(slot: string): string {
  const s = slot.toLowerCase().split(' ').join('');
  if (s === 'arriveby') return 'arrive';
  if (s === 'leaveat') return 'leave';
  return s;
}

const TYPE_CANONICAL: Record<string, string> = {
  'swimming pool': 'swimmingpool',
  'mutliple sports': 'multiple sports',
  'night club': 'nightclub',
  'guest house': 'guesthouse',
};

const FOOD_CANONICAL: Record<string, string> = {
  eriterean: 'mediterranean',
  brazilian: 'portuguese',
  'sea food': 'seafood',
  portugese: 'portuguese',
  'modern american': 'north american',
  americas: 'north american',
  intalian: 'italian',
  italain: 'italian',
  'asian or oriental': 'asian',
  english: 'british',
  australasian: 'australian',
  gastropod: 'gastropub',
  brutish: 'british',
  bristish: 'british',
  europeon: 'european',
};

const NAMES_RESTAURANT: Record<string, string> = {
  'hotel du vin bistro': 'hotel du vin and bistro',
  'the river bar and grill': 'the river bar steakhouse and grill',
  "nando's": 'nandos',
  'city center b and b': 'city center north b and b',
  'acorn house': 'acorn guest house',
  'caffee uno': 'caffe uno',
  'cafe uno': 'caffe uno',
  "rosa's": 'rosas bed and breakfast',
  'restaurant called two two': 'restaurant two two',
  'restaurant 2 two': 'restaurant two two',
  'restaurant two 2': 'restaurant two two',
  'restaurant 2 2': 'restaurant two two',
  'restaurant 1 7': 'restaurant one seven',
  'restaurant 17': 'restaurant one seven',
};

const NAMES_HOTEL_2022: Record<string, string> = {
  'lime house': 'limehouse',
  cityrooms: 'cityroomz',
  'whale of time': 'whale of a time',
  'huntingdon hotel': 'huntingdon marriott hotel',
  'holiday inn exlpress, cambridge': 'express by holiday inn cambridge',
  'university hotel': 'university arms hotel',
  'arbury guesthouse and lodge': 'arbury lodge guesthouse',
  'bridge house': 'bridge guest house',
  'arbury guesthouse': 'arbury lodge guesthouse',
  'nandos in the city centre': 'nandos city centre',
};

const NAMES_HOTEL_2023: Record<string, string> = {
  ...NAMES_HOTEL_2022,
  'a and b guest house': 'a and b guesthouse',
  'acorn guesthouse': 'acorn guest house',
};

const NAMES_ATTRACTION: Record<string, string> = {
  'broughton gallery': 'broughton house gallery',
  'scudamores punt co': 'scudamores punting co',
  'cambridge botanic gardens': 'cambridge university botanic gardens',
  'the junction': 'junction theatre',
  'trinity street college': 'trinity college',
  'christ college': "christ's college",
  christs: "christ's college",
  'history of science museum': 'whipple museum of the history of science',
  'parkside pools': 'parkside swimming pool',
  'the botanical gardens at cambridge university': 'cambridge university botanic gardens',
  'cafe jello museum': 'cafe jello gallery',
};

function lookup(table: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** `name_to_canonical(name)` with `domain=None` (all three blocks, in order). */
export function nameToCanonical(value: string, version: NormalizationVersion = '2022'): string {
  let name = pyStrip(value).toLowerCase();
  if (name.includes('&')) name = name.split(' & ').join(' and ').split('&').join(' and ');
  if (name.includes(" '")) name = name.split(" '").join("'");
  if (version === '2023' && name.includes('bed and breakfast')) name = name.split('bed and breakfast').join('b and b');
  return (
    lookup(NAMES_RESTAURANT, name) ??
    lookup(version === '2023' ? NAMES_HOTEL_2023 : NAMES_HOTEL_2022, name) ??
    lookup(NAMES_ATTRACTION, name) ??
    name
  );
}

/** `type_to_canonical`: exact-string map, no stripping or lower-casing. */
export function typeToCanonical(value: string): string {
  return lookup(TYPE_CANONICAL, value) ?? value;
}

/** `food_to_canonical`: stripped, lower-cased, then the misspelling map. */
export function foodToCanonical(value: string): string {
  const f = pyStrip(value).toLowerCase();
  return lookup(FOOD_CANONICAL, f) ?? f;
}

/** `time_to_canonical` (§ 4.3.2), in the reference's exact order. Throws {@link PythonValueError} where it crashes. */
export function timeToCanonical(value: string): string {
  let t = pyStrip(value).toLowerCase();
  if (t === 'afternoon') return '13:00';
  if (t === 'lunch' || t === 'noon' || t === 'mid-day' || t === 'around lunch time') return '12:00';
  if (t === 'morning') return '08:00';
  if (t.startsWith("one o'clock p.m")) return '13:00';
  if (t.startsWith("ten o'clock a.m")) return '10:00';
  if (t === "seven o'clock tomorrow evening") return '07:00';
  if (t === 'three forty five p.m') return '15:45';
  if (t === 'one thirty p.m.') return '13:30';
  if (t === 'six fourty five') return '06:45';
  if (t === 'eight thirty') return '08:30';
  if (t.startsWith('by')) t = pySlice(t, 3);
  if (t.startsWith('after')) t = pyStrip(t.slice(5));
  if (t.startsWith('afer')) t = pyStrip(t.slice(4));
  if (t.endsWith('am')) t = pyStrip(t.slice(0, -2));
  if (t.endsWith('a.m.')) t = pyStrip(t.slice(0, -4));
  if (t.endsWith('pm') || t.endsWith('p.m.')) {
    if (t.endsWith('pm')) t = pyStrip(t.slice(0, -2));
    if (t.endsWith('p.m.')) t = pyStrip(t.slice(0, -4));
    const parts = t.split(':');
    if (parts.length === 2) return `${pyInt(parts[0]!) + 12n}:${parts[1]}`;
    if (parts.length === 1 && pyIsDigit(parts[0]!)) return `${pyInt(parts[0]!) + 12n}:00`;
  }
  if (pyLen(t) === 0) return '00:00';
  const last = Array.from(t).pop()!;
  if (last === '.' || last === ',' || last === '?') t = t.slice(0, -1);
  if (pyIsDigit(t) && pyLen(t) === 4) return `${pySlice(t, 0, 2)}:${pySlice(t, 2)}`;
  if (pyIsDigit(t)) return `${pyZfill(t, 2)}:00`;
  if (t.includes(':')) t = t.split(' ').join('');
  if (pyLen(t) === 4 && Array.from(t)[1] === ':') {
    const parts = t.split(':');
    return `${pyZfill(parts[0]!, 2)}:${parts[1]}`;
  }
  return t;
}

/**
 * `normalize_state_slot_value(slot, value)` (§ 4.3): dispatch on the normalised slot name.
 * Throws {@link PythonValueError} for time strings on which the reference's `int()` raises.
 */
export function normalizeStateSlotValue(slot: string, value: string, version: NormalizationVersion = '2022'): string {
  switch (slot) {
    case 'name':
    case 'destination':
    case 'departure':
      return nameToCanonical(value, version);
    case 'type':
      return typeToCanonical(value);
    case 'food':
      return foodToCanonical(value);
    case 'arrive':
    case 'leave':
    case 'arriveby':
    case 'leaveat':
    case 'time':
      return timeToCanonical(value);
    case 'parking':
    case 'internet':
      return value === 'free' ? 'yes' : value;
    default:
      return value;
  }
}

const HH_MM = /^[0-9][0-9]:[0-9][0-9]/;

/**
 * `time_str_to_minutes`: 0 unless the string starts with `DD:DD`; else hours * 60 + minutes, where the minutes are
 * everything after the first colon up to the next one (so `"12:34abc"` raises in the reference, and here).
 */
export function timeStrToMinutes(s: string): number {
  if (!HH_MM.test(s)) return 0;
  const parts = s.split(':');
  return pyIntNumber(parts[0]!) * 60 + pyIntNumber(parts[1]!);
}

/** A belief state: domain -> slot -> value. */
export type BeliefState = Record<string, Record<string, string>>;

/** Normalises a state's slot names and values (§ 4); domain keys and their order are kept. Does not mutate. */
export function normalizeState(state: BeliefState, version: NormalizationVersion = '2022'): BeliefState {
  // Object.fromEntries defines own properties (a "__proto__" key stays data) and, like a Python dict, keeps the first
  // position of a duplicated key with the last value.
  return Object.fromEntries(
    Object.keys(state).map((domain) => {
      const slots = state[domain]!;
      return [
        domain,
        Object.fromEntries(
          Object.keys(slots).map((slot) => {
            const name = normalizeStateSlotName(slot);
            return [name, normalizeStateSlotValue(name, slots[slot]!, version)];
          }),
        ),
      ];
    }),
  ) as BeliefState;
}

export { PythonValueError };
