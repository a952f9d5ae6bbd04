import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrorResponse } from '../common';
import { type ClearanceDenial, ClearanceInsufficientError } from './auth.errors';
import type { AuthenticatedOfficer } from './officer';

export const IS_PUBLIC = 'auth:is-public';
export const CLEARANCE_REQUIREMENT = 'auth:clearance-requirement';

export interface ClearanceRequirement {
  level: number;
  /**
   * The audit action the route's refusals are recorded under: its clearance refusal, and every
   * AuditedDenial its handler throws that names no action of its own.
   */
  action: string;
  /** The error the caller sees when denied; by default 403 CLEARANCE_INSUFFICIENT. */
  deniedError?: () => ClearanceDenial;
}

/** The OpenAPI extension that marks an operation needing no token; the document then sets `security: []` on it. */
export const PUBLIC_OPERATION_EXTENSION = 'x-public';

/** Every route needs a valid token unless it says otherwise here; the OpenAPI document says so too. */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension(PUBLIC_OPERATION_EXTENSION, true));

/** The switches a deployment may set to open a route to everyone, named as their variables. */
export type RouteSwitch = 'AUDIT_TILES_PUBLIC';
export const OPENED_BY = 'auth:opened-by';
/** The OpenAPI extension naming the switch that opens an operation; the operation keeps its security otherwise. */
export const OPENED_BY_EXTENSION = 'x-opened-by';
/** The switches this deployment set (a ReadonlySet<RouteSwitch>): the routes they open need no token. */
export const OPEN_ROUTE_SWITCHES = Symbol('OPEN_ROUTE_SWITCHES');

/** A route a deployment may open to everyone: public where `routeSwitch` is set, guarded as it says otherwise. */
export const OpenedBy = (routeSwitch: RouteSwitch) => applyDecorators(SetMetadata(OPENED_BY, routeSwitch), ApiExtension(OPENED_BY_EXTENSION, routeSwitch));

/** Whether the route handled in `context` is opened by a switch this deployment set. */
export function isOpened(reflector: Reflector, context: ExecutionContext, open: ReadonlySet<RouteSwitch>): boolean {
  const routeSwitch = reflector.getAllAndOverride<RouteSwitch | undefined>(OPENED_BY, [context.getHandler(), context.getClass()]);
  return routeSwitch !== undefined && open.has(routeSwitch);
}

export function clearanceDenial(requirement: ClearanceRequirement): ClearanceDenial {
  return requirement.deniedError?.() ?? new ClearanceInsufficientError(`Clearance level ${requirement.level} or higher is required`);
}

/** Feeds both the ClearanceGuard and the documented 403, so the docs show exactly what a refusal returns. */
export function RequiresClearance(level: number, options: Omit<ClearanceRequirement, 'level'>) {
  const requirement: ClearanceRequirement = { level, ...options };
  const denial = clearanceDenial(requirement);
  return applyDecorators(
    SetMetadata(CLEARANCE_REQUIREMENT, requirement),
    ApiErrorResponse(denial.status, denial.errorCode, denial.message, `Clearance below ${level} (${denial.errorCode})`),
  );
}

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+)$/i;

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header or none. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}

/** The bearer token the AuthenticationGuard accepted, for a handler whose work outlives the request and checks it again. */
export const BearerToken = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const token = bearerTokenOf(context.switchToHttp().getRequest<Request>().get('authorization'));
  if (token === undefined) {
    throw new Error('BearerToken used on a route that has no authenticated officer');
  }
  return token;
});

export const CurrentOfficer = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedOfficer => {
    const officer = context.switchToHttp().getRequest<Request>().officer;
    if (!officer) {
      throw new Error('CurrentOfficer used on a route that has no authenticated officer');
    }
    return officer;
  },
);
