import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkString, Optional, Satisfies } from '../../common/validation.js';
import { checkEmail, checkHttpUrl } from './checks.js';

export class CreateWorkspaceRequest {
  /** Owner's e-mail; must not be a disposable address. */
  @ApiProperty()
  @Satisfies(checkEmail)
  ownerEmail!: string;

  /** Owner's display name; defaults to the e-mail. */
  @ApiPropertyOptional({ maxLength: 200 })
  @Optional()
  @Satisfies(checkString({ max: 200 }))
  name?: string;

  /** Defaults to `<name> workspace`. */
  @ApiPropertyOptional({ maxLength: 200 })
  @Optional()
  @Satisfies(checkString({ max: 200 }))
  workspaceName?: string;

  /** Owner's avatar URL; defaults to "". */
  @ApiPropertyOptional({ maxLength: 2000 })
  @Optional()
  @Satisfies(checkHttpUrl(2000))
  avatar?: string;
}
