export { ContentsModule } from './contents.module.js';
