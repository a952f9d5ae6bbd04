export { FleetModule } from './fleet.module';
export { FleetRepository, VESSEL_COLUMNS } from './fleet.repository';
export { VESSEL_LIMITS } from './dto/vessel-limits';
