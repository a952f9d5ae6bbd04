export { AssetsModule } from './assets.module';
export { AssetsRepository } from './assets.repository';
