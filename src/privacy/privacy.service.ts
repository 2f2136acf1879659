import { Injectable } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { DeletionJobStore, type DeletionStatus } from './deletion-job-store.js';
import { DeletionWorker } from './deletion-worker.js';
import type { DeleteUserDataRequest, DeleteUserDataStatusRequest, GetUserDataRequest } from './dto/user-data.dto.js';
import { PrivacyErrors } from './privacy.errors.js';
import { UserDataReader, type UserData } from './user-data-reader.js';

/** The user-data operations (upstream's GDPR endpoints): export, and erasure as a background job. */
@Injectable()
export class PrivacyService {
  constructor(
    private readonly reader: UserDataReader,
    private readonly jobs: DeletionJobStore,
    private readonly transactions: Transactions,
    private readonly worker: DeletionWorker,
  ) {}

  /** One page of everything held about the user in the organization. */
  get(principal: ApiKeyPrincipal, request: GetUserDataRequest, baseUrl: string): Promise<{ data: UserData; nextPageToken?: string }> {
    return this.reader.page(principal.apiKeyId, request, baseUrl);
  }

  /** Stores the job and answers at once; the worker erases in the background (and after a restart). */
  async startDeletion(principal: ApiKeyPrincipal, request: DeleteUserDataRequest): Promise<{ jobId: string; tasksCount: number }> {
    const job = await this.transactions.run((manager) => this.jobs.create(manager, principal.apiKeyId, request.userIds, request.organizationIds, Date.now()));
    this.worker.wake();
    return job;
  }

  async status(principal: ApiKeyPrincipal, request: DeleteUserDataStatusRequest): Promise<DeletionStatus> {
    const status = await this.jobs.status(principal.apiKeyId, request.jobId);
    if (!status) throw PrivacyErrors.jobNotFound();
    return status;
  }
}
