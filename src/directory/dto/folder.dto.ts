import {
  IsId,
  IsIdArray,
  IsNestedArray,
  IsOptionalBool,
  IsOptionalId,
  IsOptionalInteger,
  IsOptionalOneOf,
  IsOptionalText,
} from '../../common/validation/rules.js';
import { ACCESS_TYPES } from '../../common/access-types.js';
import { MAX_BATCH } from '../../common/batch.js';

export class FolderUpdateInput {
  @IsId()
  folderId!: string;

  @IsOptionalText(1000, { allowEmpty: true })
  folderName?: string;

  /** Parent folder (`root` for top level); in an update, a new parent moves the folder with its subtree. */
  @IsOptionalId()
  parentFolderId?: string;
}

/** A folder to add: the update fields plus its own access type. */
export class FolderInput extends FolderUpdateInput {
  /** Sets the folder's own type; absent: inherited from the parent. */
  @IsOptionalOneOf(ACCESS_TYPES)
  accessType?: string;
}

export class AddFoldersRequest {
  @IsId() organizationId!: string;

  /** Create the organization when it does not exist. */
  @IsOptionalBool() createOrganization?: boolean;

  @IsNestedArray(() => FolderInput, MAX_BATCH, { min: 1, uniqueIds: 'folderId' })
  folders!: FolderInput[];
}

export class UpdateFoldersRequest {
  @IsId() organizationId!: string;

  @IsNestedArray(() => FolderUpdateInput, MAX_BATCH, { min: 1, uniqueIds: 'folderId' })
  folders!: FolderUpdateInput[];
}

export class GetFoldersRequest {
  @IsId() organizationId!: string;

  /** Omitted: every folder of the organization (flat unless maxDepth is given). */
  @IsOptionalId() folderId?: string;

  /** Levels of nested `subFolders`; 1 when only folderId is given. */
  @IsOptionalInteger(0, 100)
  maxDepth?: number;
}

export class DeleteFolderRequest {
  @IsId() organizationId!: string;
  @IsId() folderId!: string;
}

export class UpdateFolderAccessRequest {
  @IsId() organizationId!: string;

  @IsIdArray(MAX_BATCH, { min: 1 })
  folderIds!: string[];

  @IsOptionalOneOf(ACCESS_TYPES)
  accessType?: string;

  /** `true` clears the folders' own type so they inherit again. */
  @IsOptionalBool() inheritFromParent?: boolean;
}
