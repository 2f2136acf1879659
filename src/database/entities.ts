import { AccountEntity } from '../workspace/entities/account.entity.js';
import { AllowedDomainEntity } from '../workspace/entities/allowed-domain.entity.js';
import { ApiKeyAuthTokenEntity } from '../workspace/entities/api-key-auth-token.entity.js';
import { ApiKeyEntity } from '../workspace/entities/api-key.entity.js';
import { LoginTokenEntity } from '../workspace/entities/login-token.entity.js';
import { WorkspaceEntity } from '../workspace/entities/workspace.entity.js';
import { OutgoingMailEntity } from '../mail/outgoing-mail.entity.js';
import { AccessContextEntity } from '../access/entities/access-context.entity.js';
import { GrantEntity } from '../access/entities/grant.entity.js';
import { DirectoryUserEntity } from '../directory/entities/directory-user.entity.js';
import { DocumentEntity } from '../directory/entities/document.entity.js';
import { FolderEntity } from '../directory/entities/folder.entity.js';
import { OrganizationEntity } from '../directory/entities/organization.entity.js';
import { UserGroupMemberEntity } from '../directory/entities/user-group-member.entity.js';
import { UserGroupEntity } from '../directory/entities/user-group.entity.js';

/** Every entity, for the app's DataSource and the TypeORM CLI alike. */
export const ENTITIES = [
  AccountEntity,
  WorkspaceEntity,
  ApiKeyEntity,
  ApiKeyAuthTokenEntity,
  AllowedDomainEntity,
  LoginTokenEntity,
  OutgoingMailEntity,
  OrganizationEntity,
  FolderEntity,
  DocumentEntity,
  DirectoryUserEntity,
  UserGroupEntity,
  UserGroupMemberEntity,
  GrantEntity,
  AccessContextEntity,
];
