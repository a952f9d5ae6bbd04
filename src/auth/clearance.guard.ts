import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { UnauthenticatedError, Span } from '../common';
import { routeMetadata } from '../http';
import { CLEARANCE_REQUIREMENT, ClearanceRequirement, clearanceDenial } from './auth.decorators';

/** Runs after AuthenticationGuard on routes marked with @RequiresClearance; a refusal is a denial, recorded where it is answered. */
@Injectable()
export class ClearanceGuard implements CanActivate {
  private readonly requirementOf: (context: ExecutionContext) => ClearanceRequirement | undefined;

  constructor(reflector: Reflector) {
    this.requirementOf = routeMetadata<ClearanceRequirement>(reflector, CLEARANCE_REQUIREMENT);
  }

  @Span()
  canActivate(context: ExecutionContext): boolean {
    const requirement = this.requirementOf(context);
    if (!requirement) {
      return true;
    }
    const request = context.switchToHttp().getRequest<Request>();
    const officer = request.officer;
    if (!officer) {
      // Only reachable if a route were both public and cleared: refuse rather than guess.
      throw new UnauthenticatedError('A bearer token is required');
    }
    if (officer.clearance >= requirement.level) {
      return true;
    }
    throw clearanceDenial(requirement).deniedAs({ action: requirement.action, reason: 'CLEARANCE_INSUFFICIENT', actor: officer });
  }
}
