import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { UnauthenticatedError, Span } from '../common';
import { CLEARANCE_REQUIREMENT, ClearanceRequirement, clearanceDenial, isOpened, OPEN_ROUTE_SWITCHES, type RouteSwitch } from './auth.decorators';

/**
 * Runs after AuthenticationGuard on routes marked with @RequiresClearance. It hands the route's audited
 * action to the request, for its refusal and every later one the route's handler throws; a refusal is
 * a denial (an AuditedDenial), recorded where it is answered.
 */
@Injectable()
export class ClearanceGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(OPEN_ROUTE_SWITCHES) private readonly open: ReadonlySet<RouteSwitch>,
  ) {}

  @Span()
  canActivate(context: ExecutionContext): boolean {
    const requirement = this.reflector.getAllAndOverride<ClearanceRequirement | undefined>(CLEARANCE_REQUIREMENT, [context.getHandler(), context.getClass()]);
    // A route the deployment opened needs no clearance: its requests carry no officer to check.
    if (!requirement || isOpened(this.reflector, context, this.open)) {
      return true;
    }
    const request = context.switchToHttp().getRequest<Request>();
    request.auditedAction = requirement.action;
    const officer = request.officer;
    if (!officer) {
      // Only reachable if a route were both public and cleared: refuse rather than guess.
      throw new UnauthenticatedError('A bearer token is required');
    }
    if (officer.clearance >= requirement.level) {
      return true;
    }
    throw clearanceDenial(requirement);
  }
}
