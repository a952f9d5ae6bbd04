export { DeliveryModule } from './delivery.module';
export { WEBHOOK_DELIVERY } from './webhooks/webhook-delivery.openapi';
