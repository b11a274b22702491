export { EmailCodeModule } from './email-code.module.js';
