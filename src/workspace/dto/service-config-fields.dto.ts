import { ApiPropertyOptional } from '@nestjs/swagger';
import { checkEmail } from '../../common/validation/checks.js';
import { IsOptionalHttpUrl, IsOptionalText, Optional, Satisfies } from '../../common/validation/rules.js';

// Key creation (here) and the config updates (configs/) both take these fields; they sit with
// the key, which configs/ builds on, so the update requests extend them from here.

/** E-mail service fields sent both at key creation and in config updates. */
export class EmailServiceFields {
  @IsOptionalText(1000, { allowEmpty: true }) apiKey?: string;

  @ApiPropertyOptional()
  @Optional()
  @Satisfies((value) => (value === '' ? undefined : checkEmail(value)))
  fromEmail?: string;

  @IsOptionalText(200, { allowEmpty: true }) fromCompany?: string;
  @IsOptionalText(200, { allowEmpty: true }) commentTemplateId?: string;
  @IsOptionalText(200, { allowEmpty: true }) tagTemplateId?: string;
}

/** Basic webhook fields sent both at key creation and in config updates. */
export class WebhookServiceFields {
  @IsOptionalText(1000, { allowEmpty: true }) authToken?: string;
  @IsOptionalHttpUrl(2000) rawNotificationUrl?: string;
  @IsOptionalHttpUrl(2000) processedNotificationUrl?: string;
}
