import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { ConfigError } from './config/parsers.js';
import { loadAppConfig, readProcessEnv } from './config/load-config.js';
import { configureApp } from './configure-app.js';

async function bootstrap(): Promise<void> {
  let config;
  try {
    config = loadAppConfig(readProcessEnv());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forConfig(config), { bodyParser: false, bufferLogs: true });
  configureApp(app);
  const server = await app.listen(config.port, config.host);
  server.keepAliveTimeout = 65_000;
}

await bootstrap();
