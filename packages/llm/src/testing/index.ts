export { defaultUsage, refusedBaseURL, startTestServer } from './server';
export type {
  LoggedRequest,
  RespondContext,
  TestReply,
  TestReplyObject,
  TestRequest,
  TestRule,
  TestServer,
  TestServerOptions,
} from './server';
