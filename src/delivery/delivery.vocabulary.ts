/** The audit trail's words for the changes to webhook subscriptions: stored as they are here, in the database and the API. */
export const WEBHOOK_ACTIONS = {
  create: 'webhook.create',
  delete: 'webhook.delete',
  resume: 'webhook.resume',
  rotateSecret: 'webhook.rotate_secret',
  /** The subscription reads (the list, one, its deliveries), refused below clearance 7. */
  read: 'webhook.read',
} as const;
