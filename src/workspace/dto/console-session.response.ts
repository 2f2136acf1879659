import { ApiProperty } from '@nestjs/swagger';
import { SuccessResult } from '../../common/openapi-responses.js';
import { WorkspaceView } from './workspace.response.js';

/** A console session as the console sees it; the session itself is only in the HttpOnly cookie. */
export class ConsoleSessionView {
  @ApiProperty({ description: 'The signed-in owner.' }) email!: string;
  @ApiProperty({ type: 'integer', description: 'When the session ends (epoch ms), unless signed out sooner.' }) expiresAt!: number;
  @ApiProperty({ description: 'Sent back as `x-console-csrf` on every other console request.' }) csrfToken!: string;
  @ApiProperty({ type: [WorkspaceView], description: 'The owner’s workspaces, oldest first, with `authToken` left out ("").' })
  workspaces!: WorkspaceView[];
}

export class ConsoleSessionResult extends SuccessResult {
  @ApiProperty({ type: ConsoleSessionView }) data!: ConsoleSessionView;
}
