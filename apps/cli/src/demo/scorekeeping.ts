import type { DemoEntry } from './index';

/** Episodes per experiment played by each player in the demo. */
const EPISODES_PER_EXPERIMENT = 2;

export const scorekeepingDemo: DemoEntry = {
  name: 'scorekeeping',
  title: 'Scorekeeping (clembench private/shared): a perfect vs the mock Answerer on the built-in default experiments',
  async run() {
    const {
      chatModelAnswerer,
      defaultResources,
      EXPERIMENTS,
      generateInstances,
      mockModel,
      numpyRound,
      pandasMean,
      pandasStd,
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
      const main: number[] = [];
      const played: number[] = [];
      let calls = 0;
      for (const exp of instances.experiments) {
        for (const instance of exp.game_instances) {
          const { interactions } = await playEpisode(instance, exp.name, resources, answerer);
          const scores = scoreEpisode(interactions, { nSlots: Object.keys(instance.slots).length });
          main.push(scores.episodeScores['Main Score']!);
          played.push(1 - scores.episodeScores.Aborted!);
          calls += scores.episodeScores['Request Count']!;
        }
      }
      const figures = {
        episodes: main.length,
        played: numpyRound(pandasMean(played) * 100, 2),
        quality: numpyRound(pandasMean(main), 2),
        qualityStd: numpyRound(pandasStd(main), 2),
        calls,
      };
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
