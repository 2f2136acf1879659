import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyStore } from './api-key-store.js';
import { ConfigCodec } from './config-codec.js';
import { ApiKeyAuthTokenEntity } from './entities/api-key-auth-token.entity.js';
import { ApiKeyEntity } from './entities/api-key.entity.js';

/**
 * The API key's row, for every module that reads or writes it: its repository, and the codec
 * between the delivery configs as sent and as stored (secrets sealed). Apart from
 * `WorkspaceModule` so that configs, directory, access and events reach the row without
 * importing the workspace operations (or being imported by them).
 */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity, ApiKeyAuthTokenEntity])],
  providers: [ApiKeyStore, ConfigCodec],
  exports: [ApiKeyStore, ConfigCodec],
})
export class ApiKeysModule {}
