/**
 * DEFAULT GAME TEXTS — written for this package in the team's own words so that the game runs out of the box.
 * They are NOT the clembench benchmark texts: scores obtained with them are not comparable with published
 * clembench results. For the canonical texts run `dialeval resources fetch clembench-privateshared` (or pass a
 * resource directory). Same structure as clembench's game (same experiments, slot keys and slot counts); every
 * prompt, request, probing question, reprompt, tag and slot value below is our own. The slot values pass the
 * case-insensitive value-overlap check (no value is contained in another one of the same experiment).
 */
import type { ExperimentName, ExperimentTexts, GameResources, GameWords } from './resources';

export const DEFAULT_WORDS: GameWords = {
  ANSWER: 'ANSWER: ',
  ASIDE: 'ASIDE: ',
  ME: 'ME: ',
  PROBE: 'ME: {} Please reply with just yes or no.',
  CODA: '{} Reply to this question alone, in one brief sentence.',
  DUMMY_PROMPT: 'Which request comes next?',
  YES: 'yes',
  NO: 'no',
  OK: 'Understood.',
  tags: {
    'travel-booking': 'BOOKING-CLERK',
    'job-interview': 'INTERVIEWER',
    restaurant: 'SERVER',
    'things-places': 'SEEKER',
    'letter-number': 'SEEKER',
  },
};

export const DEFAULT_REPROMPTS: string[] = [
  '',
  'Please answer this one with care.',
  'Stick to the requested format.',
  'Be precise, please.',
  'Think it over before you reply.',
];

function template(opening: string, situationNote: string | undefined, who: string): string {
  return [
    opening,
    '',
    '$INSTANCE$',
    '',
    ...(situationNote ? [situationNote, ''] : []),
    `The ${who}'s questions begin with $QUESTIONER$. Reply to them in this form: $ANSWER$<a single sentence>`,
    '',
    'From time to time I will also ask you something myself; my questions begin with $ME$. Reply to mine in this form: $ASIDE$<a single sentence>',
    '',
    'Keep every reply brief and to the point.',
    '',
    'We begin now.',
  ].join('\n');
}

const travel: ExperimentTexts = {
  template: template(
    'Imagine you are planning a journey and talking to a booking clerk. These are the facts about your trip:',
    'So far the clerk knows none of these facts.',
    'clerk',
  ),
  slotValues: {
    from: ['Dublin', 'Warsaw', 'Zurich', 'Helsinki', 'Munich', 'Porto', 'Krakow', 'Edinburgh', 'Geneva', 'Budapest'],
    to: ['Seville', 'Naples', 'Tallinn', 'Valencia', 'Bergen', 'Salzburg', 'Ljubljana', 'Bologna', 'Antwerp', 'Riga'],
    by: ['Ferry', 'Coach', 'Sleeper train', 'Motorbike', 'Bicycle', 'Camper van'],
    class: ['Premium', 'Standard', 'Budget', 'Deluxe', 'Flexible fare'],
    when: [
      'On June 2',
      'Early October',
      'Over the Easter holidays',
      'In three weeks',
      'On December 12',
      'Late summer',
      'After the New Year',
      'Mid-November',
      'On July 21',
      'During the autumn break',
    ],
  },
  requests: {
    from: ['Which city will you set off from?', 'Where does your journey start?', 'From where are you travelling?'],
    to: [
      'Which city are you heading to?',
      'Where would you like to end up?',
      'What is the final stop of your journey?',
    ],
    by: [
      'How would you like to get there?',
      'What should I book for you to travel with?',
      'Which way of travelling suits you?',
    ],
    class: [
      'Which fare category should I pick?',
      'What level of comfort would you like?',
      'Which ticket type do you want?',
    ],
    when: [
      'On which date do you want to leave?',
      'When should the journey take place?',
      'What is your preferred travel date?',
    ],
  },
  probingQuestions: {
    from: [
      'Is the clerk already aware of the city you set off from?',
      'Did you already tell the clerk where your journey starts?',
      'Could the clerk say right now where you are travelling from?',
    ],
    to: [
      'Is the clerk already aware of the city you are heading to?',
      'Did you already tell the clerk where you would like to end up?',
      'Could the clerk say right now what your final stop is?',
    ],
    by: [
      'Is the clerk already aware of how you would like to get there?',
      'Did you already tell the clerk which way of travelling suits you?',
      'Could the clerk say right now what you will travel with?',
    ],
    class: [
      'Is the clerk already aware of the fare category you want?',
      'Did you already tell the clerk what level of comfort you would like?',
      'Could the clerk say right now which ticket type to book?',
    ],
    when: [
      'Is the clerk already aware of the date you want to leave?',
      'Did you already tell the clerk when the journey should take place?',
      'Could the clerk say right now on which date you travel?',
    ],
  },
};

const job: ExperimentTexts = {
  template: template(
    'Imagine you are a candidate talking to an interviewer about a position. These are the facts about your background:',
    'So far the interviewer knows none of these facts.',
    'interviewer',
  ),
  slotValues: {
    bachelor: [
      'Physics',
      'Biology',
      'Philosophy',
      'Linguistics',
      'Architecture',
      'History',
      'Geography',
      'Statistics',
      'Sociology',
      'Astronomy',
    ],
    'industry-experience': [
      'Six months',
      'Eight years',
      'Twelve years',
      'Seven years',
      'Eighteen months',
      'Thirty years',
      'Nine years',
      'Three and a half years',
      'Twenty-five years',
      'Eleven years',
    ],
    'highest-education': ['Diploma', 'Doctorate', 'Habilitation', 'Associate degree', 'Master of Science'],
    'other-skills': [
      'Welding',
      'German',
      'Public speaking',
      'Carpentry',
      'Photography',
      'Mandarin',
      'Negotiation',
      'Accounting',
      'Knitting',
      'Sign language',
    ],
    availability: [
      'From March 1',
      'In six weeks',
      'Right away',
      'After my notice period',
      'Early spring',
      'From the first of August',
      'Within a month',
      'Next Monday',
      'In the autumn',
      'At the start of next quarter',
    ],
  },
  requests: {
    bachelor: [
      'Which subject was your first degree in?',
      'What did you major in as an undergraduate?',
      'Which field did your undergraduate studies cover?',
    ],
    'industry-experience': [
      'How much time have you spent working in industry?',
      'For how long have you held jobs outside academia?',
      'How long is your professional track record in industry?',
    ],
    'highest-education': [
      'Which is the top qualification you hold?',
      'How far did your formal education go?',
      'What is your most advanced degree?',
    ],
    'other-skills': [
      'Which further abilities would you bring along?',
      'What else are you good at?',
      'Is there an additional skill you want to mention?',
    ],
    availability: [
      'As of when could you join us?',
      'What is the earliest date you could begin?',
      'When would you be free to take up the role?',
    ],
  },
  probingQuestions: {
    bachelor: [
      'Has the interviewer already heard which subject your first degree was in?',
      'Did you already mention your undergraduate major to the interviewer?',
      'Could the interviewer name your undergraduate field right now?',
    ],
    'industry-experience': [
      'Has the interviewer already heard how long you worked in industry?',
      'Did you already mention your industry track record to the interviewer?',
      'Could the interviewer state your years in industry right now?',
    ],
    'highest-education': [
      'Has the interviewer already heard which top qualification you hold?',
      'Did you already mention your most advanced degree to the interviewer?',
      'Could the interviewer name your highest qualification right now?',
    ],
    'other-skills': [
      'Has the interviewer already heard about your further abilities?',
      'Did you already mention your additional skill to the interviewer?',
      'Could the interviewer name your extra skill right now?',
    ],
    availability: [
      'Has the interviewer already heard when you could begin?',
      'Did you already mention your earliest start date to the interviewer?',
      'Could the interviewer say right now when you are free to start?',
    ],
  },
};

const restaurant: ExperimentTexts = {
  template: template(
    'Imagine you are a guest at a restaurant, ordering from the person serving your table. This is the meal you have in mind:',
    'So far the server knows nothing about your order.',
    'server',
  ),
  slotValues: {
    appetizer: [
      'Spring rolls',
      'Tzatziki',
      'Calamari',
      'Stuffed olives',
      'Garlic bread',
      'Edamame',
      'Samosas',
      'Croquettes',
      'Tapenade',
      'Onion rings',
    ],
    drink: [
      'Limeade',
      'Iced tea',
      'Cider',
      'Espresso',
      'Mineral water',
      'Kombucha',
      'Ginger ale',
      'Root beer',
      'Milkshake',
      'Smoothie',
    ],
    'main-dish': [
      'Risotto',
      'Paella',
      'Ramen',
      'Moussaka',
      'Enchiladas',
      'Goulash',
      'Ratatouille',
      'Dumplings',
      'Pad thai',
      'Schnitzel',
    ],
    dessert: [
      'Cheesecake',
      'Panna cotta',
      'Baklava',
      'Eclair',
      'Creme brulee',
      'Apple strudel',
      'Sorbet',
      'Profiteroles',
      'Fruit tart',
      'Chocolate mousse',
    ],
    salad: ['Waldorf', 'Nicoise', 'Caprese', 'Coleslaw', 'Tabbouleh', 'Quinoa', 'Lentil', 'Cobb', 'Fattoush', 'Fennel'],
  },
  requests: {
    appetizer: [
      'What may I bring you to start with?',
      'Which starter would you like?',
      'Shall we begin with a small starter?',
    ],
    drink: ['What can I pour for you?', 'Which beverage would you like with your meal?', 'Something to drink for you?'],
    'main-dish': [
      'What will you have as your main course?',
      'Which main course are you in the mood for?',
      'What is your pick for the main plate?',
    ],
    dessert: [
      'Which sweet would you like to finish with?',
      'Would you care for something sweet at the end?',
      'What should I bring for afters?',
    ],
    salad: [
      'Which side salad goes with your order?',
      'Would you like a salad on the side?',
      'What kind of salad may I add?',
    ],
  },
  probingQuestions: {
    appetizer: [
      'Does the server already know which starter you want?',
      'Have you already named your starter to the server?',
      'Would the server be able to bring your starter without asking again?',
    ],
    drink: [
      'Does the server already know which beverage you want?',
      'Have you already named your drink to the server?',
      'Would the server be able to pour your drink without asking again?',
    ],
    'main-dish': [
      'Does the server already know which main course you want?',
      'Have you already named your main course to the server?',
      'Would the server be able to bring your main plate without asking again?',
    ],
    dessert: [
      'Does the server already know which sweet you want to finish with?',
      'Have you already named your dessert to the server?',
      'Would the server be able to bring your dessert without asking again?',
    ],
    salad: [
      'Does the server already know which salad you want?',
      'Have you already named your salad to the server?',
      'Would the server be able to bring your salad without asking again?',
    ],
  },
};

const PLACES = [
  'left',
  'right',
  'top',
  'bottom',
  'center',
  'northwest',
  'northeast',
  'southwest',
  'southeast',
  'here',
  'there',
  'nowhere',
  'everywhere',
  'inside',
  'outside',
] as const;

// Ten categories of fifteen objects; place i gets the i-th object of every category.
const OBJECT_CATEGORIES: string[][] = [
  [
    'tractor',
    'canoe',
    'scooter',
    'tram',
    'helicopter',
    'sailboat',
    'minivan',
    'unicycle',
    'gondola',
    'rickshaw',
    'bulldozer',
    'zeppelin',
    'snowmobile',
    'kayak',
    'forklift',
  ],
  [
    'sofa',
    'wardrobe',
    'bookshelf',
    'armchair',
    'stool',
    'bunk bed',
    'dresser',
    'ottoman',
    'hammock',
    'desk lamp',
    'cupboard',
    'footrest',
    'rocking chair',
    'bench',
    'cradle',
  ],
  [
    'football',
    'racket',
    'skateboard',
    'helmet',
    'dumbbell',
    'frisbee',
    'baseball bat',
    'hockey stick',
    'surfboard',
    'javelin',
    'boxing gloves',
    'shuttlecock',
    'golf club',
    'snorkel',
    'cricket bat',
  ],
  [
    'ruby',
    'sapphire',
    'emerald',
    'opal',
    'topaz',
    'garnet',
    'amethyst',
    'quartz',
    'jade',
    'onyx',
    'pearl',
    'turquoise',
    'amber',
    'obsidian',
    'granite',
  ],
  [
    'oak',
    'maple',
    'birch',
    'willow',
    'cedar',
    'spruce',
    'poplar',
    'chestnut',
    'sycamore',
    'beech',
    'cypress',
    'hawthorn',
    'juniper',
    'magnolia',
    'redwood',
  ],
  [
    'carrot',
    'leek',
    'radish',
    'parsnip',
    'cabbage',
    'celery',
    'turnip',
    'zucchini',
    'artichoke',
    'pumpkin',
    'broccoli',
    'asparagus',
    'eggplant',
    'fennel',
    'okra',
  ],
  [
    'owl',
    'heron',
    'parrot',
    'pelican',
    'flamingo',
    'penguin',
    'crow',
    'swan',
    'robin',
    'falcon',
    'toucan',
    'ostrich',
    'peacock',
    'woodpecker',
    'seagull',
  ],
  [
    'kite',
    'yo-yo',
    'teddy bear',
    'marbles',
    'jigsaw',
    'rubber duck',
    'spinning top',
    'rag doll',
    'puppet',
    'domino',
    'rattle',
    'pinwheel',
    'slinky',
    'kaleidoscope',
    'music box',
  ],
  [
    'basket',
    'jar',
    'suitcase',
    'envelope',
    'thermos',
    'backpack',
    'crate',
    'barrel',
    'lunchbox',
    'vase',
    'teapot',
    'kettle',
    'lantern',
    'candle',
    'doormat',
  ],
  [
    'scarf',
    'umbrella',
    'wristwatch',
    'sunglasses',
    'necklace',
    'bracelet',
    'beret',
    'mittens',
    'bow tie',
    'sandals',
    'bandana',
    'earmuffs',
    'cufflinks',
    'suspenders',
    'slippers',
  ],
];

const PLACE_WORDS: Record<(typeof PLACES)[number], string> = {
  left: 'on the left',
  right: 'on the right',
  top: 'up at the top',
  bottom: 'down at the bottom',
  center: 'in the middle',
  northwest: 'in the north-west corner',
  northeast: 'in the north-east corner',
  southwest: 'in the south-west corner',
  southeast: 'in the south-east corner',
  here: 'right here',
  there: 'over there',
  nowhere: 'nowhere at all',
  everywhere: 'all over the place',
  inside: 'indoors',
  outside: 'outdoors',
};

const places: ExperimentTexts = {
  template: template(
    'Several objects have been put in various spots. Only you know where; the seeker does not. This is the arrangement:',
    undefined,
    'seeker',
  ),
  slotValues: Object.fromEntries(PLACES.map((p, i) => [p, OBJECT_CATEGORIES.map((c) => c[i]!)])),
  requests: Object.fromEntries(
    PLACES.map((p) => [p, [`Which object is ${PLACE_WORDS[p]}?`, `Tell me what lies ${PLACE_WORDS[p]}.`]]),
  ),
  probingQuestions: Object.fromEntries(
    PLACES.map((p) => [
      p,
      [
        `Has the seeker already learned which object is ${PLACE_WORDS[p]}?`,
        `Did you already reveal to the seeker what lies ${PLACE_WORDS[p]}?`,
      ],
    ]),
  ),
};

const LETTERS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'] as const;
// Ninety distinct four-digit codes: ((9 * slot + k) * 7919 + 1234) mod 9000 + 1000.
const LETTER_CODES: string[][] = LETTERS.map((_, s) =>
  Array.from({ length: 9 }, (_, k) => String((((s * 9 + k) * 7919 + 1234) % 9000) + 1000)),
);

const letters: ExperimentTexts = {
  template: template(
    'Each letter below has been given a secret four-digit code. Only you know the codes; the seeker does not. These are the codes:',
    undefined,
    'seeker',
  ),
  slotValues: Object.fromEntries(LETTERS.map((l, s) => [l, LETTER_CODES[s]!])),
  requests: Object.fromEntries(
    LETTERS.map((l) => [l, [`Which code belongs to the letter ${l}?`, `Tell me the code of letter ${l}.`]]),
  ),
  probingQuestions: Object.fromEntries(
    LETTERS.map((l) => [
      l,
      [
        `Has the seeker already learned the code of letter ${l}?`,
        `Did you already reveal to the seeker which code letter ${l} has?`,
      ],
    ]),
  ),
};

const DEFAULT_EXPERIMENTS: Record<ExperimentName, ExperimentTexts> = {
  'travel-booking': travel,
  'job-interview': job,
  restaurant,
  'things-places': places,
  'letter-number': letters,
};

/** A fresh copy of the built-in default texts (own wording; NOT the clembench texts). */
export function defaultResources(): GameResources {
  return structuredClone({
    source: 'defaults',
    isDefault: true,
    words: DEFAULT_WORDS,
    reprompts: DEFAULT_REPROMPTS,
    experiments: DEFAULT_EXPERIMENTS,
  });
}
