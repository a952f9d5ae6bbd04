export { AuthModule } from './auth.module';
export { CurrentOfficer, Public, RequiresClearance } from './auth.decorators';
export type { AuthenticatedOfficer } from './officer';
export { TokenModule } from './token.module';
export { TokenService } from './token.service';
