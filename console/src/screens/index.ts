import type { FunctionComponent } from 'preact';
import type { ScreenProps } from '../session';
import { ActivityStore } from './activity';
import { Configs } from './configs';
import { Directory } from './directory';
import { Domains } from './domains';
import { Endpoints } from './endpoints';
import { Health } from './health';
import { Messages } from './messages';
import { Overview } from './overview';

/** The console's screens, in the order the navigation lists them; `id` is the address's first part. */
export const SCREENS: { id: string; title: string; component: FunctionComponent<ScreenProps> }[] = [
  { id: 'overview', title: 'Overview', component: Overview },
  { id: 'domains', title: 'Allowed domains', component: Domains },
  { id: 'configs', title: 'Configs', component: Configs },
  { id: 'endpoints', title: 'Webhook endpoints', component: Endpoints },
  { id: 'messages', title: 'Message log', component: Messages },
  { id: 'health', title: 'Delivery health', component: Health },
  { id: 'activity', title: 'Activity log', component: ActivityStore },
  { id: 'directory', title: 'Directory', component: Directory },
];
