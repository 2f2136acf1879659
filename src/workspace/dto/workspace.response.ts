import { ApiProperty } from '@nestjs/swagger';
import { mapOf, SuccessResult } from '../../common/openapi-responses.js';

/** An API key as a workspace lists it: in `apiKeyList` and in `apikeys/get`. */
export class ApiKeyView {
  @ApiProperty() id!: string;
  @ApiProperty() apiKeyName!: string;
  @ApiProperty({ enum: ['testing', 'production'] }) type!: string;
}

/** The workspace owner (rest-interface part 2). */
export class WorkspaceOwnerView {
  @ApiProperty() email!: string;
  @ApiProperty({ description: 'Stable per e-mail address across workspaces.' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'URL, or "" when none was given.' }) avatar!: string;
}

/** A workspace (rest-interface part 2). */
export class WorkspaceView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: WorkspaceOwnerView }) owner!: WorkspaceOwnerView;
  @ApiProperty({ description: 'Workspace auth token (secret).' }) authToken!: string;
  @ApiProperty(mapOf(ApiKeyView, 'The API keys, under their ids.')) apiKeyList!: Record<string, ApiKeyView>;
}

export class WorkspaceResult extends SuccessResult {
  @ApiProperty({ type: WorkspaceView }) data!: WorkspaceView;
}

/** Who signed in, and the workspaces they own, oldest first. */
export class LoginView {
  @ApiProperty() email!: string;
  @ApiProperty({ type: [WorkspaceView] }) workspaces!: WorkspaceView[];
}

export class LoginResult extends SuccessResult {
  @ApiProperty({ type: LoginView }) data!: LoginView;
}

/** Whether the owner has opened a login link (upstream's `email/status`). */
export class EmailStatusView {
  @ApiProperty() verified!: boolean;
}

export class EmailStatusResult extends SuccessResult {
  @ApiProperty({ type: EmailStatusView }) data!: EmailStatusView;
}
