export { AssetsModule } from './assets.module';
export { ASSET_COLUMNS, AssetsRepository } from './assets.repository';
