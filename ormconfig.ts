import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadAppConfig, readProcessEnv } from './src/config/load-config.js';
import { dataSourceOptions } from './src/database/data-source-options.js';

/**
 * DataSource for the TypeORM CLI, from the same configuration as the service, e.g.
 * `npm run build && npx typeorm migration:show -d dist/ormconfig.js`.
 * New migrations are written by hand, one file per step for both engines (src/database/migrations/).
 */
export default new DataSource(dataSourceOptions(loadAppConfig(readProcessEnv())));
