export { DataKeyRing, type DataKeyPurpose, type ResealReport } from './data-key-ring.js';
export { KeysModule } from './keys.module.js';
export { resealAll, type Resealing } from './reseal.js';
