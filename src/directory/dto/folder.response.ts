import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ItemResult, mapOf, SuccessResult } from '../../common/openapi-responses.js';
import { ACCESS_TYPES, type AccessType } from '../../common/access-types.js';

/** A folder as `folders/get` answers it (contract part 4). */
export class FolderView {
  @ApiProperty() folderId!: string;
  @ApiProperty({ type: 'string', nullable: true }) folderName!: string | null;
  @ApiProperty() organizationId!: string;
  @ApiProperty({ description: '`root` for a top-level folder.' }) parentFolderId!: string;
  @ApiProperty() apiKey!: string;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) createdAt!: number;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) lastUpdated!: number;
  @ApiProperty({ type: [String], description: 'Folder ids from the top level down to the parent.' }) ancestors!: string[];
  @ApiProperty({ enum: ACCESS_TYPES }) accessType!: AccessType;
  @ApiProperty() inheritAccessFromParent!: boolean;
  @ApiPropertyOptional({ type: () => [FolderView], description: 'With `maxDepth`: the folders below, nested.' }) subFolders?: FolderView[];
}

export class FoldersResult extends SuccessResult {
  @ApiProperty({ type: [FolderView] }) data!: FolderView[];
}

/**
 * One folder's outcome in access update: upstream's `{ success, accessType, message }` (with
 * `inheritFromParent` when it was sent), with the contract's `id`.
 */
export class FolderAccessItemResult extends ItemResult {
  @ApiPropertyOptional({
    type: 'string',
    enum: [...ACCESS_TYPES, null],
    nullable: true,
    description:
      "The folder's own access type now: the type sent; null with `inheritFromParent: true`; with `inheritFromParent: false`, the type the folder kept as its own. Absent when the folder does not exist.",
  })
  accessType?: string | null;
  @ApiPropertyOptional({ description: 'Present when the request sent `inheritFromParent`: its value.' }) inheritFromParent?: boolean;
}

export class FolderAccessResultsResult extends SuccessResult {
  @ApiProperty(mapOf(FolderAccessItemResult, "Each folder's outcome, under its id.")) data!: Record<string, FolderAccessItemResult>;
}
