// The one recording HTTP server of the test suites lives in the workspace's test support.
export { startMockServer, type MockServer, type Reply, type SeenRequest } from '../../../../test/support/http-recorder';
