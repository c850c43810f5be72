export { type LeaderboardInput, renderLeaderboard, writeLeaderboard } from './leaderboard';
export { type ReportInput, type ReportRun, embedJson, renderReport, writeReport } from './render';
