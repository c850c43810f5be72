export { defaultUsage, formatRateLimitDuration, refusedBaseURL, startTestServer } from './server';
export type {
  LoggedRequest,
  RateLimitOptions,
  RateLimitStats,
  RespondContext,
  TestReply,
  TestReplyObject,
  TestRequest,
  TestRule,
  TestServer,
  TestServerOptions,
} from './server';
