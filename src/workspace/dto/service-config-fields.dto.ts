import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { checkString, Optional, Satisfies } from '../../common/validation.js';
import { checkEmail, checkHttpUrl } from './checks.js';

// Key creation (here) and the config updates (configs/) both take these fields; they sit with
// the key, which configs/ builds on, so the update requests extend them from here.
const OptionalText = (max = 500) => applyDecorators(ApiPropertyOptional({ maxLength: max }), Optional(), Satisfies(checkString({ max, allowEmpty: true })));
const OptionalUrl = () => applyDecorators(ApiPropertyOptional(), Optional(), Satisfies(checkHttpUrl(2000)));

/** E-mail service fields sent both at key creation and in config updates. */
export class EmailServiceFields {
  @OptionalText(1000) apiKey?: string;

  @ApiPropertyOptional()
  @Optional()
  @Satisfies((value) => (value === '' ? undefined : checkEmail(value)))
  fromEmail?: string;

  @OptionalText(200) fromCompany?: string;
  @OptionalText(200) commentTemplateId?: string;
  @OptionalText(200) tagTemplateId?: string;
}

/** Basic webhook fields sent both at key creation and in config updates. */
export class WebhookServiceFields {
  @OptionalText(1000) authToken?: string;
  @OptionalUrl() rawNotificationUrl?: string;
  @OptionalUrl() processedNotificationUrl?: string;
}
