import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module.js';
import { ApiKeysModule } from '../workspace/api-keys.module.js';
import { ActivitiesController } from './activities.controller.js';
import { ActivitiesService } from './activities.service.js';
import { ActivityStore } from './activity-store.js';

/** The activity log (contract 6.1). Other modules observe its writes through `ActivityStore`. */
@Module({
  imports: [DirectoryModule, ApiKeysModule],
  controllers: [ActivitiesController],
  providers: [ActivitiesService, ActivityStore],
  exports: [ActivityStore],
})
export class ActivityModule {}
