export { FleetModule } from './fleet.module';
export { FleetRepository } from './fleet.repository';
