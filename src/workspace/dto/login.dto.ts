import { ApiProperty } from '@nestjs/swagger';
import { checkString, Satisfies } from '../../common/validation.js';
import { checkEmail } from './checks.js';

export class SendLoginLinkRequest {
  @ApiProperty()
  @Satisfies(checkEmail)
  email!: string;

  /** Absolute http(s) URL on `CONSOLE_DOMAIN` or `localhost`; the token is appended as `token`. */
  @ApiProperty()
  @Satisfies(checkString({ max: 2000 }))
  continueUrl!: string;
}

export class EmailStatusRequest {
  @ApiProperty()
  @Satisfies(checkEmail)
  ownerEmail!: string;
}

export class VerifyLoginRequest {
  @ApiProperty()
  @Satisfies(checkString({ max: 200 }))
  token!: string;
}
