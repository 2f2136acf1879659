import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import { withResultFields, type ResultFields } from '../common/envelope.js';
import { ItemResultsResult } from '../common/openapi-responses.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { CommentAnnotationsService } from './comment-annotations.service.js';
import { CommentsService } from './comments.service.js';
import { ReactionsService } from './reactions.service.js';
import {
  AddAnnotationsRequest,
  AddCommentsRequest,
  AddReactionRequest,
  AnnotationCountsResult,
  AnnotationsAddedResult,
  AnnotationsResult,
  CommentIdsResult,
  CommentOutcomesResult,
  CommentsResult,
  CountAnnotationsRequest,
  DeleteAnnotationsRequest,
  DeleteCommentsRequest,
  DeleteReactionRequest,
  GetAnnotationsRequest,
  GetAnnotationsV1Request,
  GetCommentsRequest,
  GetCommentsV1Request,
  ReactionAddedResult,
  ReactionDeletedResult,
  UpdateAnnotationsRequest,
  UpdateCommentsRequest,
} from './dto/comments.dto.js';

/** Comment threads (upstream's `v2/commentannotations`, and its `v1` paths), and reactions to comments (ours). */
@ApiTags('comments')
@Controller()
export class CommentsController {
  constructor(
    private readonly annotations: CommentAnnotationsService,
    private readonly comments: CommentsService,
    private readonly reactions: ReactionsService,
  ) {}

  @Operation('/v2/commentannotations/add', {
    aliases: ['/v1/commentannotations/add'],
    auth: 'apiKey',
    message: 'Comment Annotation(s) added successfully.',
    response: AnnotationsAddedResult,
    errors: ['NOT_FOUND'],
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddAnnotationsRequest): Promise<unknown> {
    return this.annotations.add(caller, data);
  }

  @Operation('/v1/commentannotations/get', { auth: 'apiKey', message: 'Annotations fetched successfully.', response: AnnotationsResult })
  getV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetAnnotationsV1Request): Promise<unknown[]> {
    return this.annotations.getEveryPage(caller, data);
  }

  @Operation('/v2/commentannotations/get', { auth: 'apiKey', message: 'Annotation(s) fetched successfully.', response: AnnotationsResult })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetAnnotationsRequest): Promise<ResultFields> {
    return this.annotations.get(caller, data).then((page) => withResultFields(page.data, { nextPageToken: page.nextPageToken }));
  }

  @Operation('/v2/commentannotations/update', {
    aliases: ['/v1/commentannotations/update'],
    auth: 'apiKey',
    message: 'Annotations updated successfully.',
    response: ItemResultsResult,
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateAnnotationsRequest): Promise<unknown> {
    return this.annotations.update(caller, data);
  }

  @Operation('/v2/commentannotations/delete', {
    aliases: ['/v1/commentannotations/delete'],
    auth: 'apiKey',
    message: 'Annotations deleted successfully.',
    response: ItemResultsResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteAnnotationsRequest): Promise<unknown> {
    return this.annotations.delete(caller, data);
  }

  @Operation('/v2/commentannotations/count/get', {
    aliases: ['/v1/commentannotations/count/get'],
    auth: 'apiKey',
    message: 'Comment count retrieved successfully.',
    response: AnnotationCountsResult,
  })
  count(@ApiKeyPrincipal() caller: Caller, @RequestData() data: CountAnnotationsRequest): Promise<unknown> {
    return this.annotations.count(caller, data);
  }

  @Operation('/v2/commentannotations/comments/add', {
    aliases: ['/v1/commentannotations/comments/add'],
    auth: 'apiKey',
    message: 'Comment(s) added successfully.',
    response: CommentIdsResult,
    errors: ['NOT_FOUND'],
  })
  addComments(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddCommentsRequest): Promise<unknown> {
    return this.comments.add(caller, data);
  }

  @Operation('/v1/commentannotations/comments/get', {
    auth: 'apiKey',
    message: 'Comments(s) retrieved successfully.',
    response: CommentsResult,
    errors: ['NOT_FOUND'],
  })
  getCommentsV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetCommentsV1Request): Promise<unknown[]> {
    return this.comments.getEveryPage(caller, data);
  }

  @Operation('/v2/commentannotations/comments/get', {
    auth: 'apiKey',
    message: 'Comments retrieved successfully.',
    response: CommentsResult,
    errors: ['NOT_FOUND'],
  })
  getComments(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetCommentsRequest): Promise<ResultFields> {
    return this.comments.get(caller, data).then((page) => withResultFields(page.data, { nextPageToken: page.nextPageToken }));
  }

  @Operation('/v2/commentannotations/comments/update', {
    aliases: ['/v1/commentannotations/comments/update'],
    auth: 'apiKey',
    message: 'Comment updated successfully.',
    response: CommentOutcomesResult,
    errors: ['NOT_FOUND'],
  })
  updateComments(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateCommentsRequest): Promise<unknown> {
    return this.comments.update(caller, data);
  }

  @Operation('/v2/commentannotations/comments/delete', {
    aliases: ['/v1/commentannotations/comments/delete'],
    auth: 'apiKey',
    message: 'Comments(s) deleted successfully.',
    response: CommentOutcomesResult,
    errors: ['NOT_FOUND'],
  })
  deleteComments(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteCommentsRequest): Promise<unknown> {
    return this.comments.delete(caller, data);
  }

  @Operation('/v2/commentannotations/comments/reactions/add', {
    auth: 'apiKey',
    message: 'Reaction added successfully.',
    response: ReactionAddedResult,
    errors: ['NOT_FOUND', 'FAILED_PRECONDITION'],
  })
  addReaction(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddReactionRequest): Promise<unknown> {
    return this.reactions.add(caller, data);
  }

  @Operation('/v2/commentannotations/comments/reactions/delete', {
    auth: 'apiKey',
    message: 'Reaction deleted successfully.',
    response: ReactionDeletedResult,
    errors: ['NOT_FOUND'],
  })
  deleteReaction(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteReactionRequest): Promise<unknown> {
    return this.reactions.delete(caller, data);
  }
}
