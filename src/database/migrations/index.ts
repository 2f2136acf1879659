import { CommentsAndInbox1763870000000 } from './1763870000000-comments-and-inbox.js';
import { CommentReadingIndexes1763890000000 } from './1763890000000-comment-reading-indexes.js';
import { LivePresence1763900000000 } from './1763900000000-live-presence.js';
import { Attachments1763910000000 } from './1763910000000-attachments.js';
import { DocumentMigrations1763920000000 } from './1763920000000-document-migrations.js';
import { InboxOrder1763930000000 } from './1763930000000-inbox-order.js';
import { WebhookConsole1763940000000 } from './1763940000000-webhook-console.js';
import { ConsoleSessions1763950000000 } from './1763950000000-console-sessions.js';
import { IdempotentRequests1763960000000 } from './1763960000000-idempotent-requests.js';
import { ApiKeyRevocation1763970000000 } from './1763970000000-api-key-revocation.js';
import { FilteredPageIndexes1763980000000 } from './1763980000000-filtered-page-indexes.js';
import { ActivityActionIndex1763990000000 } from './1763990000000-activity-action-index.js';
import { TypedFolderIndex1764000000000 } from './1764000000000-typed-folder-index.js';
import { ThreadNumbersAndImmutableActivities1763880000000 } from './1763880000000-thread-numbers-and-immutable-activities.js';
import { UserDataJobs1763860000000 } from './1763860000000-user-data-jobs.js';
import { UpstreamFields1763850000000 } from './1763850000000-upstream-fields.js';
import { Outbox1763840000000 } from './1763840000000-outbox.js';
import { Memory1763830000000 } from './1763830000000-memory.js';
import { DeliverySettings1763820000000 } from './1763820000000-delivery-settings.js';
import { Crdt1763810000000 } from './1763810000000-crdt.js';
import { Activities1763800000000 } from './1763800000000-activities.js';
import { Directory1763790000000 } from './1763790000000-directory.js';
import { Workspaces1763780000000 } from './1763780000000-workspaces.js';

/**
 * The migrations of both engines, in order; each new file is added here. A step writes its SQL
 * once, with the words the engines spell differently from `dialect.ts`. A step's class name and
 * `name` never change: TypeORM's `migrations` table records the names, and a database that ran
 * a step under its name (per-dialect files until this set) does not run it again.
 */
export const MIGRATIONS = [
  Workspaces1763780000000,
  Directory1763790000000,
  Activities1763800000000,
  Crdt1763810000000,
  DeliverySettings1763820000000,
  Memory1763830000000,
  Outbox1763840000000,
  UpstreamFields1763850000000,
  UserDataJobs1763860000000,
  CommentsAndInbox1763870000000,
  ThreadNumbersAndImmutableActivities1763880000000,
  CommentReadingIndexes1763890000000,
  LivePresence1763900000000,
  Attachments1763910000000,
  DocumentMigrations1763920000000,
  InboxOrder1763930000000,
  WebhookConsole1763940000000,
  ConsoleSessions1763950000000,
  IdempotentRequests1763960000000,
  ApiKeyRevocation1763970000000,
  FilteredPageIndexes1763980000000,
  ActivityActionIndex1763990000000,
  TypedFolderIndex1764000000000,
];
