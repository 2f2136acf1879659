import { AnnotationView } from '../../comments/dto/comments.response.js';
import { CommentUser } from '../../comments/dto/thread.schemas.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ActivityView } from '../../activity/dto/activity.response.js';
import { nullableRef, SuccessResult, WithMetadata } from '../../common/openapi-responses.js';
import { NotificationView } from '../../inbox/dto/inbox.response.js';
import { JudgmentFieldsView } from '../../memory/dto/memory.response.js';

/** The user's profile as users add stored it, with its metadata keys beside the named fields. */
@WithMetadata('Any other key is metadata the caller sent with the user.')
export class UserProfileView {
  @ApiProperty() userId!: string;
  @ApiProperty({ type: 'string', nullable: true }) name!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) email!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) initial!: string | null;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) createdAt!: number;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) lastUpdated!: number;
}

/** A membership (users add) or permission (permissions add): one grant in the organization. */
export class GrantView {
  @ApiProperty({ enum: ['organization', 'folder', 'document'] }) resourceType!: string;
  @ApiProperty() resourceId!: string;
  @ApiProperty({ enum: ['editor', 'viewer'] }) accessRole!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Unix seconds, for a temporary grant; else null.' }) expiresAt!: number | null;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) createdAt!: number;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) lastUpdated!: number;
}

export class GroupMembershipView {
  @ApiProperty() organizationUserGroupId!: string;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) createdAt!: number;
}

const CHANNEL = { type: 'string', enum: ['ALL', 'MINE', 'NONE', null], nullable: true, description: 'null: inherited (not set at this level).' } as const;

/** A notification preference as stored (channels never set are null and inherit). */
export class PreferenceView {
  @ApiProperty({ type: 'string', nullable: true, description: 'null: the organization-level default.' }) documentId!: string | null;
  @ApiProperty(CHANNEL) inbox!: string | null;
  @ApiProperty(CHANNEL) email!: string | null;
  @ApiProperty(CHANNEL) chat!: string | null;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) updatedAt!: number;
}

/** A shared-editing editor the user wrote last (its content is the document's, so not repeated here). */
export class EditorAttributionView {
  @ApiProperty() documentId!: string;
  @ApiProperty() editorId!: string;
  @ApiProperty({ enum: ['text', 'map', 'array', 'xml'] }) type!: string;
  @ApiProperty({ format: 'date-time', description: 'ISO 8601.' }) lastUpdate!: string;
}

/** A reaction the user added, and the comment it is on. */
export class CommentReactionView {
  @ApiProperty() organizationId!: string;
  @ApiProperty() documentId!: string;
  @ApiProperty({ description: "The comment's thread." }) commentAnnotationId!: string;
  @ApiProperty({ type: 'integer' }) commentId!: number;
  @ApiProperty({ description: "The reaction's id (upstream's reaction `annotationId`)." }) annotationId!: string;
  @ApiProperty() icon!: string;
  @ApiProperty({ type: CommentUser }) from!: Record<string, unknown>;
  @ApiProperty({ type: 'integer', description: 'Epoch ms.' }) createdAt!: number;
  @ApiProperty({ description: 'ISO 8601.' }) lastUpdated!: string;
}

/** A file on a comment the user wrote: where, what, and a download link. */
export class UserAttachmentView {
  @ApiProperty() organizationId!: string;
  @ApiProperty() documentId!: string;
  @ApiProperty() annotationId!: string;
  @ApiProperty({ type: 'integer' }) commentId!: number;
  @ApiProperty({ type: 'integer' }) attachmentId!: number;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) size!: number;
  @ApiProperty() mimeType!: string;
  @ApiProperty({ description: 'Download link, valid until `expiresAt` (ATTACHMENT_URL_TTL_SECONDS).' }) url!: string;
  @ApiProperty() expiresAt!: string;
}

/** Everything held about a user in one organization; every list holds at most 100 items per page, and each thing is in one list. */
export class UserDataView {
  @ApiProperty({
    type: [AnnotationView],
    description:
      'Comment threads the user started, wrote in, reacted in, or that name them (mentioned, assigned, resolver), each with its comments, as annotations get answers them.',
  })
  comments!: Record<string, unknown>[];
  @ApiProperty({ type: [CommentReactionView], description: 'Reactions the user added to comments, each with the comment it is on.' })
  reactions!: CommentReactionView[];
  @ApiProperty({ type: [ActivityView], description: 'Recorder activity records the user made or is named in (no other list repeats them).' })
  recordings!: ActivityView[];
  @ApiProperty({
    type: [NotificationView],
    description:
      "In-app notifications in the user's inbox, that they made, or that name them; `notifyUsers` and `readByUserIds` show only the user's own delivery.",
  })
  notifications!: NotificationView[];
  @ApiProperty({
    type: [ActivityView],
    description: 'Ours: every other activity record (comment, reaction, CRDT, custom, huddle) the user made or is named in, as activities get answers them.',
  })
  activities!: ActivityView[];
  @ApiProperty(nullableRef(UserProfileView, 'The user as users add stored it (kept per API key); null when never added.')) user!: UserProfileView | null;
  @ApiProperty({ type: [String], description: 'Access fields given with permissions add in this organization.' }) accessFields!: string[];
  @ApiProperty({ type: [GrantView], description: 'Organization, folder and document memberships and permissions.' }) grants!: GrantView[];
  @ApiProperty({ type: [GroupMembershipView] }) userGroups!: GroupMembershipView[];
  @ApiProperty({ type: [PreferenceView] }) notificationPreferences!: PreferenceView[];
  @ApiProperty({ type: [EditorAttributionView], description: 'Shared-editing editors whose last write named the user.' }) crdtEditors!: EditorAttributionView[];
  @ApiProperty({ type: [JudgmentFieldsView], description: 'Decisions the user made, as memory keeps them.' }) judgments!: JudgmentFieldsView[];
  @ApiProperty({ type: [UserAttachmentView], description: 'Files attached to comments the user wrote, each with a fresh download link (ours).' })
  attachments!: UserAttachmentView[];
}

export class UserDataResult extends SuccessResult {
  @ApiProperty({ type: UserDataView }) data!: UserDataView;
  @ApiPropertyOptional({ description: "Present when a list has more: the next page's `pageToken`, which continues every such list." }) nextPageToken?: string;
}

export class DeletionJobView {
  @ApiProperty({ description: 'Ask `users/data/delete/status` with it.' }) jobId!: string;
  @ApiProperty({ type: 'integer', description: 'Tasks of the job: one per module holding user data.' }) tasksCount!: number;
}

export class DeletionJobResult extends SuccessResult {
  @ApiProperty({ type: DeletionJobView }) data!: DeletionJobView;
}

export class DeletionStatusView {
  @ApiProperty() isDeleteCompleted!: boolean;
  @ApiProperty({ type: 'integer' }) tasksLeft!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Milliseconds since the epoch; null before the first task completed.' }) lastTaskCompletedTime!:
    number | null;
}

export class DeletionStatusResult extends SuccessResult {
  @ApiProperty({ type: DeletionStatusView }) data!: DeletionStatusView;
}
