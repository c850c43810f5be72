// Preloaded (`node --require`) into a benchmarked process: at exit, writes its peak RSS (bytes) and CPU time (us) as
// JSON to the file named by BENCH_RSS_FILE. Costs nothing measurable (one exit listener).
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  const u = process.resourceUsage();
  writeFileSync(process.env.BENCH_RSS_FILE, JSON.stringify({ maxRssKiB: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime }));
});
