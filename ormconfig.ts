import 'reflect-metadata';
import { loadAppConfig } from './src/config/app-config.js';
import { createStandaloneDataSource } from './src/infra/database/standalone-data-source.js';

/** The data source of the TypeORM CLI (`npm run migration:run`, `migration:revert`, `migration:show`). */
export const dataSource = createStandaloneDataSource(loadAppConfig());
