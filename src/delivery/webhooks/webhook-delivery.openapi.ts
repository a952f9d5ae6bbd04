import type { PathItemObject } from '@nestjs/swagger';
import { AUDIT_ACTIONS } from '../../audit';

const header = (name: string, description: string, schema: Record<string, unknown>, example: string) => ({ name, in: 'header' as const, required: true, description, schema, example });

/**
 * The delivery itself, as the OpenAPI document's top-level `webhooks` entry (3.1): the signed POST this
 * service makes to every subscription's url, one event at a time (docs/api.md#webhooks).
 */
export const WEBHOOK_DELIVERY: PathItemObject = {
  post: {
    operationId: 'deliverAuditEvent',
    tags: ['webhooks'],
    summary: "An event of the audit trail, POSTed to a subscription's url",
    description:
      'Standard Webhooks 1.0. In chain order per subscription, one delivery in flight at a time, at least once: a 2xx moves the subscription past the event; ' +
      'anything else (another status, a timeout, a refused connection, a redirect, which is never followed) is retried with backoff, and no later event goes out before it. ' +
      'Verify webhook-signature before trusting the body, and drop a webhook-id already processed.',
    security: [],
    parameters: [
      header('webhook-id', 'The event id: the same on every retry, so duplicates can be dropped.', { type: 'string', pattern: '^[1-9][0-9]{0,15}$', maxLength: 16 }, '42'),
      header('webhook-timestamp', 'Unix seconds of this attempt; refuse one far from your clock (Standard Webhooks allows 5 minutes).', { type: 'string', pattern: '^[0-9]{1,12}$', maxLength: 12 }, '1795256130'),
      header(
        'webhook-signature',
        'Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the decoded bytes of the secret after `whsec_`; two of them for 24 hours after a rotation.',
        { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$', maxLength: 512 },
        'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      ),
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['type', 'timestamp', 'data'],
            properties: {
              type: { type: 'string', enum: Object.values(AUDIT_ACTIONS), description: "The event's action.", example: 'asset.decommission' },
              timestamp: { type: 'string', format: 'date-time', maxLength: 24, description: "The event's time (occurred_at).", example: '2026-11-21T10:15:30.000Z' },
              data: { $ref: '#/components/schemas/AuditEventDto' },
            },
          },
        },
      },
    },
    responses: {
      '2XX': { description: 'Received: the subscription moves past the event.' },
      default: { description: 'Anything else, or no answer within WEBHOOK_TIMEOUT_MS: the event is retried, and the subscription waits on it.' },
    },
  },
};
