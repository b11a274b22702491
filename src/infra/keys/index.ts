export { DataKeyRing, resealEach, type DataKeyPurpose, type ResealReport } from './data-key-ring.js';
export { KeysModule } from './keys.module.js';
export { SealedText } from './sealed-text.js';
