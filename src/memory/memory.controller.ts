import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { QueryJudgmentsRequest, SuggestRequest } from './dto/memory.dto.js';
import { MemoryService } from './memory.service.js';
import { JudgmentsResult, SuggestResult } from './dto/memory.response.js';

/** Suggested approve/reject decisions from past judgments (contract part 8). */
@ApiTags('memory')
@Controller()
export class MemoryController {
  constructor(private readonly memory: MemoryService) {}

  /** The result holds only `primary` and `conflict` (rest-interface convention 2). */
  @Operation('/v2/memory/suggest', {
    summary: 'Suggests an approve or reject decision from similar past judgments.',
    example: { query: 'Launch in September?', organizationId: 'org-acme' },
    auth: 'apiKey',
    message: 'Suggestion retrieved successfully.',
    result: 'only',
    response: SuggestResult,
  })
  suggest(@ApiKeyPrincipal() caller: Caller, @RequestData() data: SuggestRequest): ReturnType<MemoryService['suggest']> {
    return this.memory.suggest(caller, data);
  }

  @Operation('/v2/memory/judgments/query', {
    summary: 'Lists past judgments (approvals, rejections, resolutions), filtered.',
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', limit: 20 },
    auth: 'apiKey',
    message: 'Judgments retrieved successfully.',
    result: 'fields',
    response: JudgmentsResult,
  })
  query(@ApiKeyPrincipal() caller: Caller, @RequestData() data: QueryJudgmentsRequest): ReturnType<MemoryService['query']> {
    return this.memory.query(caller, data);
  }
}
