import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/** The health yardstick of bench/compare.ts: a bare Nest 12 app on Express that serves GET /health/live and nothing else. */
@Controller('health')
class HealthController {
  @Get('live')
  live(): { status: 'success' } {
    return { status: 'success' };
  }
}

@Module({ controllers: [HealthController] })
class BareNestModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(BareNestModule, { logger: false });
  await app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
  // What test/support/processes.ts waits for, as the service logs it.
  console.log(`listening on ${await app.getUrl()}`);
  // An orderly exit, so that `--cpu-prof` writes its profile.
  process.on('SIGTERM', () => process.exit(0));
}

void main();
