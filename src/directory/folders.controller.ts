import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { ItemResults } from './batch.js';
import { AddFoldersRequest, DeleteFolderRequest, GetFoldersRequest, UpdateFolderAccessRequest, UpdateFoldersRequest } from './dto/folder.dto.js';
import { FoldersService, type FolderRecord } from './folders.service.js';

/** Folder trees of an organization (contract part 4). */
@ApiTags('folders')
@Controller()
export class FoldersController {
  constructor(private readonly folders: FoldersService) {}

  @Operation('/v2/organizations/folders/add', { auth: 'apiKey', message: 'Folder created successfully.' })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddFoldersRequest): Promise<ItemResults> {
    return this.folders.add(caller, data);
  }

  @Operation('/v2/organizations/folders/get', { auth: 'apiKey', message: 'Folders retrieved successfully.' })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetFoldersRequest): Promise<FolderRecord[]> {
    return this.folders.get(caller, data);
  }

  @Operation('/v2/organizations/folders/update', { auth: 'apiKey', message: 'Folder Updated successfully.' })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateFoldersRequest): Promise<ItemResults> {
    return this.folders.update(caller, data);
  }

  @Operation('/v2/organizations/folders/delete', { auth: 'apiKey', message: 'Folder deleted successfully.' })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteFolderRequest): Promise<null> {
    return this.folders.delete(caller, data.organizationId, data.folderId);
  }

  @Operation('/v2/organizations/folders/access/update', { auth: 'apiKey', message: 'Updated access for folders successfully.' })
  updateAccess(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateFolderAccessRequest): Promise<ItemResults> {
    return this.folders.updateAccess(caller, data);
  }
}
