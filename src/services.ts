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
import type { KeyRing } from './shared/key-ring.js';
import { createConnectorFactory } from './connectors/index.js';
import {
  createCredentialsService,
  type ConnectorFactory,
} from './modules/credentials/credentials.service.js';

export interface ServiceDeps {
  db: Db;
  clock: Clock;
  config: Config;
  keyRing: KeyRing;
  /** How connectors are made; by default aimed at the configured store URLs. */
  connectors?: ConnectorFactory;
  /** How long a sync or push waits for another one of the same project. */
  lockWaitMs?: number;
}

export function createServices(deps: ServiceDeps) {
  const db = deps.db.kysely;
  const { clock } = deps;
  const projects = createProjectsService({ db, clock });
  const listings = createListingsService({ db, clock, projects });
  const credentials = createCredentialsService({
    db,
    clock,
    keyRing: deps.keyRing,
    connectors: deps.connectors ?? createConnectorFactory(deps.config),
  });
  return {
    organizations: createOrganizationsService({ db, clock }),
    members: createMembersService({ db, clock }),
    invites: createInvitesService({ db, clock, publicUrl: deps.config.publicUrl }),
    apiKeys: createApiKeysService({ db, clock }),
    projects,
    listings,
    fastlane: createFastlaneTransfer(listings),
    credentials,
    sync: createSyncService({
      db,
      clock,
      projects,
      listings,
      credentials,
      ...(deps.lockWaitMs !== undefined && { lockWaitMs: deps.lockWaitMs }),
    }),
  };
}

export type Services = ReturnType<typeof createServices>;
