import { ApiProperty } from '@nestjs/swagger';
import { IsText } from '../../common/validation/rules.js';

export class StartConsoleSessionRequest {
  /** The `token` of a login link (`email/send-login-link`); used up by signing in. */
  @ApiProperty({ description: "The login link's `token`; it works once." })
  @IsText(200)
  token!: string;
}
