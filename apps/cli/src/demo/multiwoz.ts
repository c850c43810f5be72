import type { DemoEntry } from './index';

/**
 * Delexicalised system responses and references written for this demo (not from MultiWOZ): the responses go through
 * mwzeval's normalisation (placeholders, Moses round trip), then sacreBLEU and the richness figures.
 */
export const MULTIWOZ_DEMO: ReadonlyArray<{ response: string; reference: string }> = [
  {
    response: 'I found [value_count] [value_type]s in the [value_area] .',
    reference: 'there are COUNT TYPE in the AREA.',
  },
  {
    response: '[restaurant_name] serves [value_food] food , shall I book it ?',
    reference: 'NAME serves FOOD food. would you like a table?',
  },
  {
    response: 'Booked ! Your reference number is [restaurant_reference] .',
    reference: 'booking was successful. the reference number is REFERENCE.',
  },
  { response: 'The train [train_id] leaves at [value_time] .', reference: 'TRAINID departs at TIME.' },
  {
    response: 'Is there anything else I can help you with ?',
    reference: 'is there anything else i can help you with?',
  },
];

/** A two-turn prediction for the test dialogue sng0073 (a taxi booking), written for this demo. */
const DEMO_DIALOGUE = {
  sng0073: [
    {
      response: 'what time would you like to leave ?',
      state: { taxi: { departure: "saint john's college", destination: 'pizza hut fen ditton' } },
    },
    {
      response: 'i have booked a [taxi_type] for you , the contact number is [taxi_phone] .',
      state: { taxi: { departure: "saint john's college", destination: 'pizza hut fen ditton', leaveAt: '17:15' } },
    },
  ],
};

export const multiwozDemo: DemoEntry = {
  name: 'multiwoz',
  title: 'MultiWOZ: mwzeval normalisation, BLEU, lexical richness (Inform/Success with the fetched data)',
  async run() {
    const { corpusBleu, normalizeResponse, richness, MultiwozEvaluator, readMultiwozData } = await import(
      '@eval/multiwoz'
    );
    const normalized = MULTIWOZ_DEMO.map((x) => normalizeResponse(x.response));
    const bleu = corpusBleu(
      normalized,
      MULTIWOZ_DEMO.map((x) => x.reference),
    );
    const rich = richness(normalized);
    const lines = [
      `normalised: ${JSON.stringify(MULTIWOZ_DEMO[0]!.response)} -> ${JSON.stringify(normalized[0])}`,
      `BLEU ${bleu.score.toFixed(2)} (${MULTIWOZ_DEMO.length} responses; sys/ref length ${bleu.stats.sysLen}/${bleu.stats.refLen})`,
      `richness: entropy ${rich.entropy.toFixed(3)}, cond. entropy ${rich.cond_entropy.toFixed(3)}, avg length ${rich.avg_lengths.toFixed(2)}, ` +
        `${rich.num_unigrams} unigrams, ${rich.num_trigrams} trigrams`,
    ];
    let success: unknown = null;
    try {
      const data = await readMultiwozData({ success: true });
      const r = new MultiwozEvaluator(data, { success: true }).evaluate(DEMO_DIALOGUE);
      success = r.success;
      lines.push(
        `Inform/Success of a 2-turn taxi dialogue (sng0073): ${r.success!.inform.total} / ${r.success!.success.total}`,
      );
    } catch (error) {
      if ((error as { code?: string }).code !== 'resource_missing') throw error;
      lines.push(
        'Inform/Success need the MultiWOZ data: run `dialeval resources fetch multiwoz` (or set DIALEVAL_MULTIWOZ_DIR)',
      );
    }
    return { lines, data: { normalized, bleu: bleu.score, bleuStats: bleu.stats, richness: rich, success } };
  },
};
