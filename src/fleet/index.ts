export { FleetModule } from './fleet.module';
export { FleetRepository, VESSEL_COLUMNS } from './fleet.repository';
