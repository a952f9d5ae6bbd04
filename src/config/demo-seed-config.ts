import { IsIn, IsOptional } from 'class-validator';
import { isProduction, type RuntimeVariables } from './environment';

/** Whether an empty database is filled with demo records at start-up. */
export interface DemoSeedConfig {
  seedDemo: boolean;
}

export class DemoSeedVariables {
  @IsOptional()
  @IsIn(['true', 'false'])
  SEED_DEMO?: string;
}

export function demoSeedConfig(vars: DemoSeedVariables, runtime: RuntimeVariables): DemoSeedConfig {
  // Demo records in a production database would pass for real ones: there it takes an explicit yes.
  return { seedDemo: isProduction(runtime) ? vars.SEED_DEMO === 'true' : vars.SEED_DEMO !== 'false' };
}
