// Runs the scripted test server in its own process (so that a benchmark's client and server do not share one
// thread) and prints its base URL on the first line of stdout. Options come as JSON in argv[2]: `latencyMs`, and
// `rateLimit` for the rate-limited mode (`{ "rpm": 600, "tpm": 60000, "headers": "openai" | "none" }`).
import { type RateLimitOptions, startTestServer } from '../src/testing/index';

const options = JSON.parse(process.argv[2] ?? '{}') as { latencyMs?: number; rateLimit?: RateLimitOptions };
const server = await startTestServer({ latencyMs: options.latencyMs ?? 0, rateLimit: options.rateLimit });
process.stdout.write(`${server.baseURL}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
