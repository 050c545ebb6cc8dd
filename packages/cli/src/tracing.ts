import { SettingsError, setTracingOn } from '@hookyard/core';

/**
 * Tracing is off unless the standard OTEL_* variables turn an exporter on:
 * `OTEL_TRACES_EXPORTER=otlp|console` (a comma list), or, with it unset, an
 * OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). `OTEL_SDK_DISABLED=true` and
 * `OTEL_TRACES_EXPORTER=none` keep it off. The OTLP exporter speaks
 * OTLP/HTTP with JSON bodies; another protocol is refused rather than
 * quietly sent as JSON. Everything else (endpoint, headers, timeout,
 * sampler, batch delays, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) is
 * read by the SDK itself.
 */
export type TraceExporterName = 'otlp' | 'console';

export interface TracingConfig {
  exporters: TraceExporterName[];
}

const EXPORTERS: readonly string[] = ['otlp', 'console', 'none'];
const PROTOCOLS: readonly string[] = ['http/json'];

/** What the environment asks for: null when tracing stays off. A value we do not support is a SettingsError naming it. */
export function tracingConfig(env: NodeJS.ProcessEnv): TracingConfig | null {
  const disabled = (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase();
  if (disabled === 'true') return null;
  if (disabled !== '' && disabled !== 'false')
    throw new SettingsError('OTEL_SDK_DISABLED', `must be true or false, got ${JSON.stringify(env.OTEL_SDK_DISABLED)}`);
  const raw = env.OTEL_TRACES_EXPORTER;
  let names: string[];
  if (raw === undefined || raw.trim() === '') {
    const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
    names = endpoint ? ['otlp'] : [];
  } else {
    names = [
      ...new Set(
        raw
          .split(',')
          .map((n) => n.trim().toLowerCase())
          .filter((n) => n !== ''),
      ),
    ];
    const bad = names.filter((n) => !EXPORTERS.includes(n));
    if (bad.length) throw new SettingsError('OTEL_TRACES_EXPORTER', `supports ${EXPORTERS.join(', ')}; got ${bad.map((b) => JSON.stringify(b)).join(', ')}`);
    if (names.includes('none') && names.length > 1)
      throw new SettingsError('OTEL_TRACES_EXPORTER', `none cannot be combined with another exporter, got ${JSON.stringify(raw)}`);
    names = names.filter((n) => n !== 'none');
  }
  if (names.includes('otlp')) {
    for (const variable of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'] as const) {
      const v = env[variable];
      if (v === undefined || v.trim() === '') continue;
      if (!PROTOCOLS.includes(v.trim())) throw new SettingsError(variable, `the OTLP trace exporter sends ${PROTOCOLS.join(', ')}; got ${JSON.stringify(v)}`);
      break; // the traces-specific variable wins over the general one
    }
  }
  return names.length ? { exporters: names as TraceExporterName[] } : null;
}

export interface TracingHandle {
  /** Sends the spans ended so far (at shutdown). */
  flush(): Promise<void>;
}

let started: TracingHandle | null = null;

/**
 * Registers the OpenTelemetry SDK for this process when `tracingConfig` says
 * so (once per process: every role served here shares it), then turns the
 * tracing branches of every package on. Off: loads nothing and returns null.
 * `service.name` defaults to `hookyard-<role>` (OTEL_SERVICE_NAME wins).
 */
export async function startTracing(env: NodeJS.ProcessEnv, role: string, instance: string): Promise<TracingHandle | null> {
  const config = tracingConfig(env);
  if (!config) return null;
  if (started) return started;
  // Loaded only when tracing is on: an untraced process never pays for the SDK.
  const [
    { NodeTracerProvider },
    { BatchSpanProcessor, SimpleSpanProcessor, ConsoleSpanExporter },
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator },
    resources,
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ]);
  const { ATTR_SERVICE_NAME } = await import('@opentelemetry/semantic-conventions');
  const processors = [];
  for (const name of config.exporters) {
    if (name === 'console') processors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
    else {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
      processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
    }
  }
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ [ATTR_SERVICE_NAME]: `hookyard-${role}`, 'hookyard.role': role, 'service.instance.id': instance }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over our defaults.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  provider.register({ contextManager: new AsyncLocalStorageContextManager(), propagator: new W3CTraceContextPropagator() });
  setTracingOn(true);
  started = { flush: () => provider.forceFlush() };
  return started;
}
