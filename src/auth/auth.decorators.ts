import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiForbiddenResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { ErrorResponseDto } from '../common';
import type { AuthenticatedOfficer } from './officer';

export const IS_PUBLIC = 'auth:is-public';
export const CLEARANCE_REQUIREMENT = 'auth:clearance-requirement';

export interface ClearanceRequirement {
  level: number;
  /** The audit action a denial is recorded under. */
  action: string;
  /** The error the caller sees when denied; by default 403 CLEARANCE_INSUFFICIENT. */
  deniedError?: () => Error;
}

/** Every route needs a valid token unless it says otherwise here. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export function RequiresClearance(level: number, options: Omit<ClearanceRequirement, 'level'>) {
  return applyDecorators(
    SetMetadata(CLEARANCE_REQUIREMENT, { level, ...options } satisfies ClearanceRequirement),
    ApiForbiddenResponse({ description: `Clearance below ${level}`, type: ErrorResponseDto }),
  );
}

export const CurrentOfficer = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedOfficer => {
    const officer = context.switchToHttp().getRequest<Request>().officer;
    if (!officer) {
      throw new Error('CurrentOfficer used on a route that has no authenticated officer');
    }
    return officer;
  },
);
