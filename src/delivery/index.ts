export { DeliveryModule } from './delivery.module';
