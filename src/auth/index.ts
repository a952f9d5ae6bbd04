export { AuthModule } from './auth.module';
export { AuthenticationGuard } from './authentication.guard';
export { ClearanceGuard } from './clearance.guard';
export { BearerToken, CurrentOfficer, OpenedBy, OPENED_BY_EXTENSION, Public, PUBLIC_OPERATION_EXTENSION, RequiresClearance } from './auth.decorators';
export { type ClearanceDenial, ClearanceInsufficientError, TokenRefusedError } from './auth.errors';
export { AUTH_ACTIONS, AUTH_DENIAL_REASONS, CLEARANCE_INSUFFICIENT, TOKEN_DENIAL_REASONS, type TokenDenialReason } from './auth.vocabulary';
export { type AuthenticatedOfficer, SUBJECT_MAX_LENGTH } from './officer';
export { TokenModule } from './token.module';
export { type TokenStanding, TokenService } from './token.service';
