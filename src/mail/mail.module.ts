import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Mailer } from './mailer.service.js';
import { OutgoingMailEntity } from './outgoing-mail.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([OutgoingMailEntity])],
  providers: [Mailer],
  exports: [Mailer],
})
export class MailModule {}
