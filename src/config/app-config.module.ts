import { type DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config.js';

/** Makes the already-validated `AppConfig` injectable everywhere. */
@Global()
@Module({})
export class AppConfigModule {
  static forConfig(config: AppConfig): DynamicModule {
    return { module: AppConfigModule, providers: [{ provide: AppConfig, useValue: config }], exports: [AppConfig] };
  }
}
