export { CurrentOfficer, Public, RequiresClearance } from './auth.decorators';
export type { AuthenticatedOfficer } from './officer';
