import type { AppConfig } from '../../config/app-config.js';
import type { HttpPipeline } from './pipeline.js';

/**
 * The pipeline of the configured framework. Only that framework is loaded: each of Nest's
 * platforms with its framework is about 9 MB of heap an instance would hold for nothing.
 */
export async function createHttpPipeline(config: AppConfig): Promise<HttpPipeline> {
  if (config.httpAdapter === 'express') return (await import('./express-pipeline.js')).expressPipeline(config);
  return (await import('./fastify-pipeline.js')).fastifyPipeline(config);
}
