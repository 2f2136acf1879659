import { ApiProperty } from '@nestjs/swagger';
import { SuccessResult } from '../../common/openapi-responses.js';

/** Domains added, normalised. */
export class DomainsAddedView {
  @ApiProperty({ type: [String] }) domainsAdded!: string[];
}

export class DomainsAddedResult extends SuccessResult {
  @ApiProperty({ type: DomainsAddedView }) data!: DomainsAddedView;
}

/** The key's allowed domains, oldest first. */
export class AllowedDomainsView {
  @ApiProperty({ type: [String] }) allowedDomains!: string[];
}

export class AllowedDomainsResult extends SuccessResult {
  @ApiProperty({ type: AllowedDomainsView }) data!: AllowedDomainsView;
}

/** Domains removed, normalised. */
export class DomainsRemovedView {
  @ApiProperty({ type: [String] }) domainsRemoved!: string[];
}

export class DomainsRemovedResult extends SuccessResult {
  @ApiProperty({ type: DomainsRemovedView }) data!: DomainsRemovedView;
}
