/** The composition root of the domain: every service, wired with what it uses. */
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { createApiKeysService } from './modules/api-keys/api-keys.service.js';
import { createFastlaneTransfer } from './modules/listings/fastlane-transfer.js';
import { createListingsService } from './modules/listings/listings.service.js';
import { createInvitesService } from './modules/invites/invites.service.js';
import { createMembersService } from './modules/members/members.service.js';
import { createOrganizationsService } from './modules/organizations/organizations.service.js';
import { createProjectsService } from './modules/projects/projects.service.js';
import { createSyncService } from './modules/sync/sync.service.js';
import type { Clock } from './shared/clock.js';

export function createServices(deps: { db: Db; clock: Clock; config: Config }) {
  const db = deps.db.kysely;
  const { clock } = deps;
  const projects = createProjectsService({ db, clock });
  const listings = createListingsService({ db, clock, projects });
  return {
    organizations: createOrganizationsService({ db, clock }),
    members: createMembersService({ db, clock }),
    invites: createInvitesService({ db, clock, publicUrl: deps.config.publicUrl }),
    apiKeys: createApiKeysService({ db, clock }),
    projects,
    listings,
    fastlane: createFastlaneTransfer(listings),
    sync: createSyncService({ projects, listings }),
  };
}

export type Services = ReturnType<typeof createServices>;
