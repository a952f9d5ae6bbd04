import { ConfigurationError, loadTracingConfig } from './config';
import { startTracing } from './tracing';

/**
 * Imported by main.ts before anything else it loads: OpenTelemetry's SDK must start before the modules
 * it instruments are loaded. A bad OTEL_* value leaves it off here; loadAppConfig reports it a moment
 * later, as it reports every other.
 */
function tracingConfig() {
  try {
    return loadTracingConfig();
  } catch (error) {
    if (error instanceof ConfigurationError) {
      return undefined;
    }
    throw error;
  }
}

const config = tracingConfig();
if (config) {
  startTracing(config);
}
