import { Module } from '@nestjs/common';
import { MailTemplates } from './mail-templates.js';
import { Mailer } from './mailer.service.js';
import { OutgoingMailStore } from './outgoing-mail-store.js';

/**
 * Mail: the transport (SMTP, or keeping mail when there is none; it owns `outgoing_mail`) and
 * the templates mail is rendered from.
 */
@Module({
  providers: [OutgoingMailStore, Mailer, MailTemplates],
  exports: [OutgoingMailStore, Mailer, MailTemplates],
})
export class MailModule {}
