import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmailAddress, IsOptionalHttpUrl, IsOptionalText } from '../../common/validation/rules.js';

export class CreateWorkspaceRequest {
  /** Owner's e-mail; must not be a disposable address. */
  @ApiProperty()
  @IsEmailAddress()
  ownerEmail!: string;

  /** Owner's display name; defaults to the e-mail. */
  @IsOptionalText(200)
  name?: string;

  /** Defaults to `<name> workspace`. */
  @IsOptionalText(200)
  workspaceName?: string;

  /** Owner's avatar URL; defaults to "". */
  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptionalHttpUrl(2000)
  avatar?: string;
}
