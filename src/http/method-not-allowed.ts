import { All, Controller, createParamDecorator, type DynamicModule, type ExecutionContext, Module, RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { MethodNotAllowedError } from '../common';

type ModuleRef = Type | DynamicModule;

function controllersOf(module: ModuleRef): Type[] {
  const type = 'module' in module ? module.module : module;
  const dynamic = 'module' in module ? (module.controllers ?? []) : [];
  return [...((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, type) as Type[] | undefined) ?? []), ...dynamic];
}

function joinPath(...parts: string[]): string {
  return `/${parts.map((part) => part.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
}

function asList(path: string | string[] | undefined): string[] {
  return Array.isArray(path) ? path : [path ?? '/'];
}

/** Each route path the modules' controllers serve, with the methods it answers (HEAD wherever GET is). */
export function allowedMethodsByPath(modules: ModuleRef[]): Map<string, string[]> {
  const allowed = new Map<string, Set<string>>();
  for (const controller of modules.flatMap(controllersOf)) {
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      const method = typeof handler === 'function' ? (Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined) : undefined;
      if (typeof handler !== 'function' || method === undefined) {
        continue;
      }
      for (const base of asList(Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined)) {
        for (const own of asList(Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined)) {
          const methods = allowed.get(joinPath(base, own)) ?? new Set<string>();
          methods.add(RequestMethod[method]);
          if (method === RequestMethod.GET) {
            methods.add('HEAD');
          }
          allowed.set(joinPath(base, own), methods);
        }
      }
    }
  }
  return new Map([...allowed].map(([path, methods]) => [path, [...methods].sort()]));
}

/** The route pattern Express matched, e.g. `/v1/assets/:asset_id`. */
const MatchedRoute = createParamDecorator((_data: unknown, context: ExecutionContext): string =>
  String((context.switchToHttp().getRequest<Request>().route as { path?: string } | undefined)?.path),
);

/**
 * Answers every other method on a path that exists with 405 and `Allow`. It is an ordinary route behind
 * the global guards, so a caller without a token gets 401 (and the refusal is audited) before learning
 * which methods a path has. It must be imported after the modules it covers: Express tries routes in
 * the order they were registered, so theirs come first.
 */
@Module({})
export class MethodNotAllowedModule {
  static covering(modules: ModuleRef[]): DynamicModule {
    const allowed = allowedMethodsByPath(modules);

    @ApiExcludeController()
    @Controller()
    class MethodNotAllowedController {
      @All([...allowed.keys()])
      refuse(@MatchedRoute() route: string): never {
        throw new MethodNotAllowedError(allowed.get(route) ?? []);
      }
    }

    return { module: MethodNotAllowedModule, controllers: [MethodNotAllowedController] };
  }
}
