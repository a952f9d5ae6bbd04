import { type CallHandler, type ExecutionContext, HttpStatus, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { ApiError } from '../common';
import { TransactionRunner } from '../database';
import { errorBodyOf } from '../http';
import { Metrics } from '../observability';
import { bodyFingerprint } from './canonical-json';
import { IDEMPOTENCY_KEY_PATTERN, InvalidIdempotencyKeyError } from './idempotency.errors';
import { IdempotencyService } from './idempotency.service';
import type { KeptAnswer, KeyClaim } from './idempotency-keys.repository';
import { IDEMPOTENT } from './idempotent.decorator';

/** The refusals that say what the record is (absent, in another state, changed): a retry would get them too, so they are kept. */
const KEPT_REFUSALS: ReadonlySet<number> = new Set([HttpStatus.NOT_FOUND, HttpStatus.CONFLICT, HttpStatus.PRECONDITION_FAILED]);
/** The headers of an answer that a replay gives again, beside its status and body. */
const KEPT_HEADERS = ['Location', 'ETag'] as const;

/**
 * Idempotency-Key on the routes marked @Idempotent(): after the guards (a 401, 403 or 429 is never
 * kept, nor claims a key), the key is claimed in the database; the decision then runs in a
 * transaction opened here, which its own transactions join, and its answer is kept in that same
 * transaction, so no crash can leave a decision committed without its kept answer.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly reflector: Reflector,
    private readonly idempotency: IdempotencyService,
    private readonly transactions: TransactionRunner,
    private readonly metrics: Metrics,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const key = request.get('Idempotency-Key');
    if (key === undefined || !this.reflector.get<boolean>(IDEMPOTENT, context.getHandler())) {
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
    const outcome = await this.idempotency.claim(
      { caller: request.officer.id, key },
      { method: request.method, path: request.path, fingerprint: bodyFingerprint(request.body) },
    );
    if ('replay' in outcome) {
      this.metrics.idempotentReplay(request.method, (request.route as { path?: string } | undefined)?.path ?? request.path);
      response.status(outcome.replay.status).set(outcome.replay.headers).set('Idempotent-Replayed', 'true');
      return outcome.replay.body;
    }
    try {
      return await this.transactions.run(async (trx) => {
        const body: unknown = await lastValueFrom(next.handle());
        await this.idempotency.complete(trx, outcome.claim, { status: response.statusCode, headers: keptHeadersOf(response), body });
        return body;
      });
    } catch (failure) {
      await this.settleRefused(outcome.claim, failure);
      throw failure;
    }
  }

  /** A refusal that reflects the record is kept for the retry; any other failure frees the key. */
  private async settleRefused(claim: KeyClaim, failure: unknown): Promise<void> {
    try {
      if (failure instanceof ApiError && KEPT_REFUSALS.has(failure.status)) {
        const answer: KeptAnswer = { status: failure.status, headers: {}, body: errorBodyOf(failure) };
        await this.idempotency.keepRefusal(claim, answer);
      } else {
        await this.idempotency.release(claim);
      }
    } catch (error) {
      // The failure itself is the answer; the claim goes stale and is taken over by a retry after CLAIM_STALE_MS.
      this.logger.warn(`Idempotency-Key ${claim.key} not settled: ${error instanceof Error ? error.message : String(error)}`);
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
