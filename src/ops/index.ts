export { setUpOpenApi } from './openapi/openapi.js';
export { OpsModule } from './ops.module.js';
