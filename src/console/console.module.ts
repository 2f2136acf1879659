import { Module } from '@nestjs/common';
import { ConsoleFiles } from './console-files.js';
import { ConsoleController } from './console.controller.js';

/** Serves the owners' web console at `/console`; its sign-in lives in `workspace/` (sessions). */
@Module({ controllers: [ConsoleController], providers: [ConsoleFiles] })
export class ConsoleModule {}
