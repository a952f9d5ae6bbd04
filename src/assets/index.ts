export { AssetsModule } from './assets.module';
export { ASSET_COLUMNS, AssetsRepository } from './assets.repository';
export { ASSET_TEXT_MAX_LENGTH, AUTHORIZED_BY_MAX_LENGTH, REASON_MAX_LENGTH } from './dto/asset.dto';
export { type DecommissionPolicyName, DecommissionPolicyRepository } from './decommission-policy.repository';
