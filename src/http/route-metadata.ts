import type { ExecutionContext, Type } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

/**
 * A reader of one metadata key on the route a request reached, handler first, then its controller
 * (Reflector's getAllAndOverride). Route metadata is fixed once the app is built, so each route's value
 * is looked up once and remembered: Reflect's lookups on every request cost more than a Map's.
 */
export function routeMetadata<T>(reflector: Reflector, key: string): (context: ExecutionContext) => T | undefined {
  const byController = new WeakMap<Type, Map<unknown, T | undefined>>();
  return (context) => {
    const controller = context.getClass();
    const handler = context.getHandler();
    let byHandler = byController.get(controller);
    if (!byHandler) {
      byHandler = new Map();
      byController.set(controller, byHandler);
    }
    if (!byHandler.has(handler)) {
      byHandler.set(handler, reflector.getAllAndOverride<T | undefined>(key, [handler, controller]));
    }
    return byHandler.get(handler);
  };
}
