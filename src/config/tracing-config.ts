import { IsIn, IsNotEmpty, IsOptional, IsUrl, Matches } from 'class-validator';
import { readVariables } from './environment';

/**
 * What the service sets of OpenTelemetry's SDK; the SDK reads every other OTEL_* variable itself
 * (exporter, protocol, endpoint, headers, sampler, resource attributes).
 */
export interface TracingConfig {
  serviceName: string;
}

const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
/** The trace exporters the SDK knows, as OTEL_TRACES_EXPORTER lists them. */
const TRACES_EXPORTERS = /^(otlp|console|none)(,(otlp|console|none))*$/;

export class TracingVariables {
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true }, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL such as http://collector:4318' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true }, { message: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http(s) URL such as http://collector:4318/v1/traces' })
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  @IsOptional()
  @IsIn(OTLP_PROTOCOLS)
  OTEL_EXPORTER_OTLP_PROTOCOL?: string;

  @IsOptional()
  @IsIn(OTLP_PROTOCOLS)
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string;

  @IsOptional()
  @Matches(TRACES_EXPORTERS, { message: 'OTEL_TRACES_EXPORTER must be otlp, console or none, or a comma-separated list of them' })
  OTEL_TRACES_EXPORTER?: string;

  @IsOptional()
  @IsIn(['true', 'false'])
  OTEL_SDK_DISABLED?: string;

  @IsOptional()
  @IsNotEmpty()
  OTEL_SERVICE_NAME?: string;
}

/**
 * Traces are on when an OTLP endpoint or a trace exporter is named, as the SDK reads them, and
 * OTEL_SDK_DISABLED does not switch them off; with nothing set the service exports nothing.
 */
export function tracingConfig(vars: TracingVariables): TracingConfig | undefined {
  const exporters = vars.OTEL_TRACES_EXPORTER?.split(',');
  const named = exporters ? !exporters.includes('none') : (vars.OTEL_EXPORTER_OTLP_ENDPOINT ?? vars.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) !== undefined;
  return named && vars.OTEL_SDK_DISABLED !== 'true' ? { serviceName: vars.OTEL_SERVICE_NAME ?? 'fleet-registry' } : undefined;
}

/** What the server reads before anything else, to start the SDK before the modules it instruments load: OTEL_* alone. */
export function loadTracingConfig(env: NodeJS.ProcessEnv = process.env): TracingConfig | undefined {
  const [vars] = readVariables(env, [TracingVariables]);
  return tracingConfig(vars);
}
