export { startTracing } from './tracing';
export { TracingModule } from './tracing.module';
