import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { ItemResult, ItemResults } from '../common/batch.js';
import { AddFoldersRequest, DeleteFolderRequest, GetFoldersRequest, UpdateFolderAccessRequest, UpdateFoldersRequest } from './dto/folder.dto.js';
import { FoldersService, type FolderAccessItem } from './folders.service.js';
import { FolderAccessResultsResult, FoldersResult, type FolderView } from './dto/folder.response.js';
import { ItemResultsResult, NullDataResult } from '../common/openapi-responses.js';
import { DirectoryErrors } from './directory.errors.js';

/** Folder trees of an organization (contract part 4). */
@ApiTags('folders')
@Controller()
export class FoldersController {
  constructor(private readonly folders: FoldersService) {}

  @Operation('/v2/organizations/folders/add', {
    summary: 'Adds folders to an organization, at top level or under a parent folder.',
    example: {
      organizationId: 'org-acme',
      folders: [
        { folderId: 'folder-planning', folderName: 'Planning' },
        { folderId: 'folder-q3', folderName: 'Q3', parentFolderId: 'folder-planning' },
        { folderId: 'folder-scratch', folderName: 'Scratch' },
      ],
    },
    aliasExamples: { '/v1/organizations/folders/add': { organizationId: 'org-acme', folders: [{ folderId: 'folder-archive', folderName: 'Archive' }] } },

    aliases: ['/v1/organizations/folders/add'],
    auth: 'apiKey',
    message: 'Folder created successfully.',
    response: ItemResultsResult,
    errors: [DirectoryErrors.organizationMissing()],
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddFoldersRequest): Promise<ItemResults> {
    return this.folders.add(caller, data);
  }

  @Operation('/v2/organizations/folders/get', {
    summary: "Reads an organization's folders, or one folder with its subfolders.",
    example: { organizationId: 'org-acme', folderId: 'folder-planning', maxDepth: 2 },

    aliases: ['/v1/organizations/folders/get'],
    auth: 'apiKey',
    message: 'Folders retrieved successfully.',
    response: FoldersResult,
    errors: [DirectoryErrors.folderNotFound()],
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetFoldersRequest): Promise<FolderView[]> {
    return this.folders.get(caller, data);
  }

  @Operation('/v2/organizations/folders/update', {
    summary: 'Renames folders or moves them (with their subtree) under another parent.',
    example: { organizationId: 'org-acme', folders: [{ folderId: 'folder-q3', folderName: 'Q3 2026' }] },

    aliases: ['/v1/organizations/folders/update'],
    auth: 'apiKey',
    message: 'Folder Updated successfully.',
    response: ItemResultsResult,
    errors: ['NOT_FOUND'],
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateFoldersRequest): Promise<ItemResults> {
    return this.folders.update(caller, data);
  }

  @Operation('/v2/organizations/folders/delete', {
    summary: 'Deletes a folder with its subfolders and the documents in them.',
    example: { organizationId: 'org-acme', folderId: 'folder-scratch' },
    auth: 'apiKey',
    message: 'Folder deleted successfully.',
    response: NullDataResult,
    errors: [DirectoryErrors.folderNotFound()],
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteFolderRequest): Promise<null> {
    return this.folders.delete(caller, data.organizationId, data.folderId);
  }

  @Operation('/v2/organizations/folders/access/update', {
    summary: "Sets folders' access type, or makes them inherit their parent's again.",
    example: { organizationId: 'org-acme', folderIds: ['folder-planning'], accessType: 'organizationPrivate' },

    aliases: ['/v1/organizations/folders/access/update'],
    auth: 'apiKey',
    message: 'Updated access for folders successfully.',
    response: FolderAccessResultsResult,
    errors: ['NOT_FOUND'],
  })
  updateAccess(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateFolderAccessRequest): Promise<Record<string, ItemResult | FolderAccessItem>> {
    return this.folders.updateAccess(caller, data);
  }
}
