import { type CallHandler, type ExecutionContext, HttpStatus, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { ApiError } from '../common';
import { TransactionRunner } from '../database';
import { errorBodyOf } from '../http';
import { Metrics } from '../observability';
import { bodyFingerprint } from './canonical-json';
import { IDEMPOTENCY_KEY_PATTERN, InvalidIdempotencyKeyError } from './idempotency.errors';
import { type Decided, IdempotencyService } from './idempotency.service';

/** The refusals that say what the record is (absent, in another state, changed): a retry would get them too, so they are kept. */
const KEPT_REFUSALS: ReadonlySet<number> = new Set([HttpStatus.NOT_FOUND, HttpStatus.CONFLICT, HttpStatus.PRECONDITION_FAILED]);
/** The headers of an answer that a replay gives again, beside its status and body. */
const KEPT_HEADERS = ['Location', 'ETag'] as const;

/** A decision's answer, to keep; and, when it was a refusal that reflects the record, the refusal to throw once kept. */
interface DecisionAnswer extends Decided {
  refusal?: ApiError;
}

/**
 * Idempotency-Key on the routes marked @Idempotent(), which binds it to them alone: after the guards (a 401, 403 or 429 is never
 * kept, nor claims a key), the decision runs under the key in one transaction that claims the key,
 * decides, and keeps the answer (IdempotencyService.decideOnce); the decision's own transactions join it.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly transactions: TransactionRunner,
    private readonly metrics: Metrics,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const key = request.get('Idempotency-Key');
    if (key === undefined) {
      return next.handle();
    }
    return from(this.decideOnce(key, request, http.getResponse<Response>(), next));
  }

  private async decideOnce(key: string, request: Request, response: Response, next: CallHandler): Promise<unknown> {
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new InvalidIdempotencyKeyError();
    }
    if (!request.officer) {
      throw new Error('@Idempotent() on a route that has no authenticated officer');
    }
    const outcome = await this.idempotency.decideOnce(
      { caller: request.officer.id, key },
      { method: request.method, path: request.path, fingerprint: bodyFingerprint(request.body) },
      () => this.decide(next, response),
    );
    if ('replay' in outcome) {
      this.metrics.idempotentReplay(request.method, (request.route as { path?: string } | undefined)?.path ?? request.path);
      response.status(outcome.replay.status).set(outcome.replay.headers).set('Idempotent-Replayed', 'true');
      return outcome.replay.body;
    }
    if (outcome.decided.refusal) {
      throw outcome.decided.refusal;
    }
    return outcome.decided.answer.body;
  }

  /**
   * Runs the decision, in a savepoint: its answer; or, when it was refused in a way that reflects the
   * record, the refusal's answer, to keep, with whatever the decision wrote undone. Any other failure is
   * thrown, and nothing under the key commits: the retry is decided afresh.
   */
  private async decide(next: CallHandler, response: Response): Promise<DecisionAnswer> {
    try {
      const body: unknown = await this.transactions.undoOnFailure(() => lastValueFrom(next.handle()));
      return { answer: { status: response.statusCode, headers: keptHeadersOf(response), body } };
    } catch (failure) {
      if (failure instanceof ApiError && KEPT_REFUSALS.has(failure.status)) {
        return { answer: { status: failure.status, headers: {}, body: errorBodyOf(failure) }, refusal: failure };
      }
      throw failure;
    }
  }
}

function keptHeadersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = response.getHeader(name);
    if (typeof value === 'string') {
      headers[name] = value;
    }
  }
  return headers;
}
