import { ApiProperty } from '@nestjs/swagger';
import { IsEmailAddress, IsText } from '../../common/validation/rules.js';

export class SendLoginLinkRequest {
  @ApiProperty()
  @IsEmailAddress()
  email!: string;

  /** Absolute http(s) URL on `CONSOLE_DOMAIN` or `localhost`; the token is appended as `token`. */
  @IsText(2000)
  continueUrl!: string;
}

export class EmailStatusRequest {
  @ApiProperty()
  @IsEmailAddress()
  ownerEmail!: string;
}

export class VerifyLoginRequest {
  @IsText(200)
  token!: string;
}
