import { Module } from '@nestjs/common';
import { ConnectionDrain } from './connection-drain';
import { ShutdownState } from './graceful-shutdown';

/** Tracks a drain in progress (readiness reads it) and closes idle connections when the app shuts down. */
@Module({ providers: [ConnectionDrain, ShutdownState], exports: [ShutdownState] })
export class ShutdownModule {}
