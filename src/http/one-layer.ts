import type { NextFunction, Request, Response } from 'express';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * Runs middlewares in order as one Express layer: each layer costs Express's router a match and a
 * dispatch on every request, which for these short middlewares costs more than their own work. A
 * middleware that answers (or never calls next) ends the chain; an error (any truthy value, as Express
 * reads it) skips the rest.
 */
export function inOneLayer(...middlewares: Middleware[]): Middleware {
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error || index === middlewares.length) {
        next(error);
        return;
      }
      middlewares[index++](req, res, step);
    };
    step();
  };
}
