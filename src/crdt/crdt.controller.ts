import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { CrdtService } from './crdt.service.js';
import { DeleteCrdtRequest, GetCrdtRequest, GetCrdtStateRequest, UpdateCrdtStateRequest, WriteCrdtRequest } from './dto/crdt.dto.js';
import { CrdtRecordsResult, CrdtStateResult } from './dto/crdt.response.js';
import { StatusOnlyResult } from '../common/openapi-responses.js';
import { CrdtErrors } from './crdt.errors.js';

/** Shared-editing content on Yjs (contract part 7). Writes answer status and message only. */
@ApiTags('crdt')
@Controller()
export class CrdtController {
  constructor(private readonly crdt: CrdtService) {}

  @Operation('/v2/crdt/add', {
    summary: "Creates an editor's shared-editing (Yjs) content from plain data.",
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      editorId: 'roadmap-body',
      type: 'text',
      data: 'Q1: discovery. Q2: beta.',
      userId: 'user-alice',
    },
    auth: 'apiKey',
    message: 'CRDT data added successfully.',
    result: 'none',
    response: StatusOnlyResult,
    errors: [CrdtErrors.exists()],
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: WriteCrdtRequest): ReturnType<CrdtService['add']> {
    return this.crdt.add(caller, data);
  }

  @Operation('/v2/crdt/get', {
    summary: "Reads the content of a document's editors as plain data, a page at a time.",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', editorId: 'roadmap-body' },
    auth: 'apiKey',
    message: 'CRDT data retrieved successfully.',
    result: 'fields',
    response: CrdtRecordsResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetCrdtRequest): ReturnType<CrdtService['get']> {
    return this.crdt.get(caller, data);
  }

  @Operation('/v2/crdt/update', {
    summary: "Replaces an editor's content, merged into the shared document as a diff.",
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      editorId: 'roadmap-body',
      type: 'text',
      data: 'Q1: discovery. Q2: beta. Q3: launch.',
      userId: 'user-bob',
    },
    auth: 'apiKey',
    message: 'CRDT data updated successfully.',
    result: 'none',
    response: StatusOnlyResult,
    errors: [CrdtErrors.missing()],
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: WriteCrdtRequest): ReturnType<CrdtService['update']> {
    return this.crdt.update(caller, data);
  }

  @Operation('/v2/crdt/delete', {
    summary: "Deletes editors' shared-editing content, or every editor of the document.",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', editorIds: ['roadmap-body'] },
    listedAfter: '/v2/crdt/state/update',
    auth: 'apiKey',
    message: 'CRDT data deleted successfully.',
    result: 'none',
    response: StatusOnlyResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteCrdtRequest): ReturnType<CrdtService['delete']> {
    return this.crdt.delete(caller, data);
  }

  @Operation('/v2/crdt/state/get', {
    summary: "Reads an editor's Yjs state as an update (base64), all of it or what a state vector lacks.",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', editorId: 'roadmap-body' },
    auth: 'apiKey',
    message: 'CRDT state retrieved successfully.',
    response: CrdtStateResult,
    errors: [CrdtErrors.missing()],
  })
  getState(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetCrdtStateRequest): Promise<{ update: string; stateVector: string }> {
    return this.crdt.getState(caller, data);
  }

  @Operation('/v2/crdt/state/update', {
    summary: 'Applies a Yjs update (base64) to an editor, as a live client would.',
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      editorId: 'roadmap-body',
      update: 'AQGy8hkABAEHY29udGVudAdEcmFmdDogAA==',
      userId: 'user-bob',
    },
    auth: 'apiKey',
    message: 'CRDT state updated successfully.',
    result: 'none',
    response: StatusOnlyResult,
    errors: [CrdtErrors.missing()],
  })
  updateState(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateCrdtStateRequest): ReturnType<CrdtService['updateState']> {
    return this.crdt.updateState(caller, data);
  }
}
