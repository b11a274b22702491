export { IdTokenKeys } from './id-token-keys.js';
export { ProviderModule } from './provider.module.js';
