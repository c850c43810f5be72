import type { DemoEntry } from './index';

/** Episodes per experiment played by each player in the demo. */
const EPISODES_PER_EXPERIMENT = 2;

export const scorekeepingDemo: DemoEntry = {
  name: 'scorekeeping',
  title: 'Scorekeeping (clembench private/shared): a perfect vs the mock Answerer on the built-in default experiments',
  async run() {
    const {
      aggregateScores,
      chatModelAnswerer,
      defaultResources,
      EXPERIMENTS,
      generateInstances,
      mockModel,
      perfectModel,
      playEpisode,
      scoreEpisode,
    } = await import('@eval/scorekeeping');
    // The package's own default texts (not clembench's), instances from seed 42; no network.
    const resources = defaultResources();
    const instances = generateInstances(resources, { seed: 42, instancesPerExperiment: EPISODES_PER_EXPERIMENT });
    const players = [
      { name: 'perfect', model: perfectModel(resources) },
      { name: 'mock', model: mockModel(resources, { seed: 42 }) },
    ];
    const data: Record<string, unknown> = {};
    const lines = [
      `${EXPERIMENTS.length} experiments x ${EPISODES_PER_EXPERIMENT} episodes each; probes of a round sent concurrently; scored like clembench`,
    ];
    for (const p of players) {
      const answerer = chatModelAnswerer(p.model, { name: p.name });
      const records = [];
      let calls = 0;
      for (const exp of instances.experiments) {
        for (const instance of exp.game_instances) {
          const { interactions } = await playEpisode(instance, exp.name, resources, answerer);
          const scores = scoreEpisode(interactions, { nSlots: Object.keys(instance.slots).length });
          calls += scores.episodeScores['Request Count']!;
          records.push({
            model: p.name,
            game: 'privateshared',
            experiment: exp.name,
            episode: `episode_${instance.game_id}`,
            file: '',
            scores: { 'turn scores': scores.turnScores, 'episode scores': scores.episodeScores },
          });
        }
      }
      // clemeval's figures (% Played, Quality Score and its std, rounded as clemeval does)
      const g = aggregateScores(records).games[0]!;
      const figures = { episodes: g.episodes, played: g.played, quality: g.quality, qualityStd: g.qualityStd, calls };
      data[p.name] = figures;
      const q = Number.isNaN(figures.quality) ? 'n/a (every episode aborted)' : figures.quality.toFixed(2);
      lines.push(
        `${p.name.padEnd(8)} % Played ${figures.played.toFixed(2).padStart(6)}   Quality Score ${q}   (${calls} model calls)`,
      );
    }
    lines.push('the mock answers with random tags/yes/no and invalid continuations, so most of its episodes abort');
    return { lines, data };
  },
};
