export { IntrospectionModule } from './introspection.module.js';
