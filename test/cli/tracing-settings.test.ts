import { unknownSettings } from '@hookyard/core';
import { tracingConfig } from '../../packages/cli/src/tracing';
import { eventually, requireBuiltCli, startRole } from '../support/processes';
import { runCli } from './support';

const lines = (s: string) => s.split('\n').filter((l) => l !== '');

describe('tracing settings (the standard OTEL_* variables)', () => {
  beforeAll(() => requireBuiltCli());

  it.each([
    [{}, null],
    [{ OTEL_SERVICE_NAME: 'x' }, null],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, null],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }, null],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, { exporters: ['otlp'] }],
    [{ OTEL_TRACES_EXPORTER: ' OTLP , console ' }, { exporters: ['otlp', 'console'] }],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, { exporters: ['otlp'] }],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, { exporters: ['otlp'] }],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, { exporters: ['otlp'] }],
    // The traces-specific protocol wins over the general one.
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, { exporters: ['otlp'] }],
  ])('%j turns tracing %j', (env, want) => {
    expect(tracingConfig(env)).toEqual(want);
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'hookyard: bad setting OTEL_TRACES_EXPORTER: supports otlp, console, none; got "zipkin"'],
    [{ OTEL_TRACES_EXPORTER: 'none,otlp' }, 'hookyard: bad setting OTEL_TRACES_EXPORTER: none cannot be combined with another exporter, got "none,otlp"'],
    [
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
      'hookyard: bad setting OTEL_EXPORTER_OTLP_PROTOCOL: the OTLP trace exporter sends http/json; got "http/protobuf"',
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
      'hookyard: bad setting OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: the OTLP trace exporter sends http/json; got "grpc"',
    ],
    [{ OTEL_SDK_DISABLED: 'yes' }, 'hookyard: bad setting OTEL_SDK_DISABLED: must be true or false, got "yes"'],
  ])('serve with %j: exit 2, one line naming the variable', async (env, line) => {
    const r = await runCli(['serve'], { env: { HOOKS_HTTP_PORT: '0', ...env }, killAfterMs: 15_000 });
    expect({ code: r.code, stderr: lines(r.stderr) }).toEqual({ code: 2, stderr: [line] });
  });

  it('OTEL_* variables are not Hookyard settings to warn about; a HOOKS_* typo beside them still is', async () => {
    const env = {
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_SERVICE_NAME: 'hookyard-test',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
      HOOKS_RUN_MAX_ATTEMPT: '3',
    };
    expect(unknownSettings(env).map((u) => u.variable)).toEqual(['HOOKS_RUN_MAX_ATTEMPT']);
    const server = startRole('otel-env', 'all', { HOOKS_API_TOKENS: 'admin:otel-test-admin-token-0123456', ...env });
    try {
      await server.waitListening();
      await eventually(async () => server.logs().find((l) => l.variable === 'HOOKS_RUN_MAX_ATTEMPT'), 5_000, 'the warning');
      expect(
        server
          .logs()
          .filter((l) => typeof l.variable === 'string')
          .map((l) => l.variable),
      ).toEqual(['HOOKS_RUN_MAX_ATTEMPT']);
    } finally {
      await server.stop();
    }
  });
});
