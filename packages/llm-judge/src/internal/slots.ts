/**
 * The slot schema of the reference (`get_slot_information` over the MultiWOZ 2.1 ontology, TRADE naming):
 * the 30 domain-slot names of hotel, train, restaurant, attraction and taxi, spaces removed except in
 * "book ..." slots, and the value ranges of the numeric slots.
 */
export const SLOTS: readonly string[] = [
  'attraction-area',
  'attraction-name',
  'attraction-type',
  'hotel-area',
  'hotel-book day',
  'hotel-book people',
  'hotel-book stay',
  'hotel-internet',
  'hotel-name',
  'hotel-parking',
  'hotel-pricerange',
  'hotel-stars',
  'hotel-type',
  'restaurant-area',
  'restaurant-book day',
  'restaurant-book people',
  'restaurant-book time',
  'restaurant-food',
  'restaurant-name',
  'restaurant-pricerange',
  'taxi-arriveby',
  'taxi-departure',
  'taxi-destination',
  'taxi-leaveat',
  'train-arriveby',
  'train-book people',
  'train-day',
  'train-departure',
  'train-destination',
  'train-leaveat',
];

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => String(a + i));

/** Allowed values of the numeric slots, keyed by the slot part after `-` (`get_numerical_slot_values`). */
export const NUMERICAL_SLOT_VALUES: Readonly<Record<string, readonly string[]>> = {
  'book people': range(1, 19),
  stars: range(1, 5),
  'book stay': range(1, 19),
};

/** The slot schema used by the integration rules: a set of names and the numeric ranges. */
export interface SlotSchema {
  slots: ReadonlySet<string>;
  numericValues: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The reference schema ({@link SLOTS}, {@link NUMERICAL_SLOT_VALUES}), or a custom one. */
export function slotSchema(
  slots: readonly string[] = SLOTS,
  numericValues: Readonly<Record<string, readonly string[]>> = NUMERICAL_SLOT_VALUES,
): SlotSchema {
  return {
    slots: new Set(slots),
    numericValues: new Map(Object.entries(numericValues).map(([k, v]) => [k, new Set(v)])),
  };
}

export const DEFAULT_SCHEMA: SlotSchema = slotSchema();
