import { ApiError } from '../common/errors.js';

/** Messages of contract part 4. */
export const DirectoryMessages = {
  organizationAdded: 'Added Successfully',
  organizationUpdated: 'Updated Successfully',
  organizationDeleted: 'Deleted Successfully',
  organizationMissing: 'Organization does not exist',
  /** Upstream's per-item wording (no trailing period, as upstream writes it). */
  organizationDisableStateUpdated: 'Updated disable state for organization Successfully',
  folderAdded: 'Folder added.',
  folderExists: 'Folder already exists.',
  folderParentMissing: 'Parent folder does not exist.',
  folderRootReserved: 'Folder ID "root" is reserved.',
  folderUpdated: 'Folder Updated.',
  folderMissing: 'Folder does not exist.',
  folderCycle: 'A folder cannot be moved under itself or one of its subfolders.',
  folderAccessUpdated: 'Folder access type updated.',
  documentAdded: 'Added Successfully',
  documentExists: 'Document already exists',
  documentUpdated: 'Updated Successfully',
  documentDeleted: 'Deleted Successfully',
  documentMissing: 'Document does not exist',
  documentMoved: 'Document moved.',
  documentAccessUpdated: 'Document access type updated.',
  /** Upstream's per-item wording. */
  documentDisableStateUpdated: 'Document disabled state updated.',
} as const;

export const DirectoryErrors = {
  organizationMissing: () => new ApiError('NOT_FOUND', 'Organization does not exist'),
  folderNotFound: () => new ApiError('NOT_FOUND', 'Folder not found.'),
  documentMissing: () => new ApiError('NOT_FOUND', 'Document does not exist'),
  /** Documents migrate's `newDocumentId` names a document that exists (the contract's add wording). */
  documentExists: () => new ApiError('ALREADY_EXISTS', 'Document already exists'),
  sameDocumentId: () => new ApiError('INVALID_ARGUMENT', 'data.newDocumentId must differ from data.documentId'),
  /** An unknown migration id, another organization's or another key's: a foreign id behaves as an unknown one (contract 1.4). */
  migrationNotFound: () => new ApiError('NOT_FOUND', 'Migration not found.'),
  inheritWithAccessType: () => new ApiError('INVALID_ARGUMENT', 'Send either accessType or inheritFromParent, not both.'),
  accessFieldRequired: () => new ApiError('INVALID_ARGUMENT', 'One of accessType or inheritFromParent is required.'),
  groupDeleteNeedsSelection: () => new ApiError('INVALID_ARGUMENT', 'Give either userIds or deleteAll: true.'),
  groupByNeedsAllDocuments: () => new ApiError('INVALID_ARGUMENT', 'groupByDocumentId works with allDocuments: true.'),
  allDocumentsWithPlace: () => new ApiError('INVALID_ARGUMENT', 'allDocuments reads every document: give no documentId or folderId with it.'),
  documentOrFolder: () => new ApiError('INVALID_ARGUMENT', 'Give either documentId or folderId, not both.'),
};
