import { AccountEntity } from '../workspace/entities/account.entity.js';
import { AllowedDomainEntity } from '../workspace/entities/allowed-domain.entity.js';
import { ApiKeyAuthTokenEntity } from '../workspace/entities/api-key-auth-token.entity.js';
import { ApiKeyEntity } from '../workspace/entities/api-key.entity.js';
import { LoginTokenEntity } from '../workspace/entities/login-token.entity.js';
import { WorkspaceEntity } from '../workspace/entities/workspace.entity.js';
import { OutgoingMailEntity } from '../mail/outgoing-mail.entity.js';

/** Every entity, for the app's DataSource and the TypeORM CLI alike. */
export const ENTITIES = [
  AccountEntity,
  WorkspaceEntity,
  ApiKeyEntity,
  ApiKeyAuthTokenEntity,
  AllowedDomainEntity,
  LoginTokenEntity,
  OutgoingMailEntity,
];
