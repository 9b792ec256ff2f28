/**
 * The composition root of the domain: every service, wired with exactly what it uses. The server,
 * the MCP endpoint and the operator CLI all get their services from here.
 */
import { createConnectorFactory } from './connectors/index.js';
import { createApiKeysService, createKeyIssuer } from './modules/api-keys/index.js';
import { createAuditLog } from './modules/audit/index.js';
import { createCredentialsService } from './modules/credentials/index.js';
import { createIdempotencyService } from './modules/idempotency/index.js';
import { createInviteAcceptance, createInvitesService } from './modules/invites/index.js';
import {
  createApprovalRequests,
  createApprovals,
  createDiffs,
  createFastlaneTransfer,
  createListingsService,
  createListingWriter,
} from './modules/listings/index.js';
import { createLocalesService } from './modules/locales/index.js';
import { createMembersService } from './modules/members/index.js';
import {
  createOrganizationSetup,
  createOrganizationsService,
  parseSettings,
} from './modules/organizations/index.js';
import { createProjectsService } from './modules/projects/index.js';
import { createPasskeysService, createSessionsService } from './modules/sessions/index.js';
import {
  createBackgroundOperations,
  createOperationRunner,
  createOperationsLog,
  createPushService,
  createSyncService,
} from './modules/sync/index.js';
import { createDriftDetection } from './modules/drift/index.js';
import { createEventStream, createOutbox } from './modules/events/index.js';
import { createWebhookFanOut, createWebhooksService } from './modules/webhooks/index.js';
import { createJobQueue, WAKE_AFTER_MS } from './jobs/index.js';
import { createBlobStore } from './blobs/index.js';
import { NO_METRICS } from './metrics/index.js';
import {
  createReleaseControls,
  createReleasesService,
  releaseNotesChangesOf,
} from './modules/releases/index.js';
import { createMarketingService, createProductsService, productChangesOf } from './modules/products/index.js';
import { createDetailsService } from './modules/details/index.js';
import { createScheduleRunner, createSchedulesService } from './modules/schedules/index.js';
import {
  createMediaCollection,
  createMediaService,
  createMediaTransfer,
  createStoreMedia,
} from './modules/media/index.js';
import {
  createGlossaries,
  createMachineTranslation,
  createTranslationTracker,
  createTranslationsService,
} from './modules/translations/index.js';
import { createDeepLProvider } from './connectors/deepl/index.js';
import pino from 'pino';
import type { ServiceDeps } from './service-deps.js';
// The composition root alone holds whole repositories; features get narrowed ports from it.
import { apiKeysRepository } from './modules/api-keys/api-keys.repository.js';
import { invitesRepository } from './modules/invites/invites.repository.js';
import { listingsRepository } from './modules/listings/listings.repository.js';
import { membersRepository } from './modules/members/members.repository.js';
import { organizationsRepository } from './modules/organizations/organizations.repository.js';
import { projectsRepository } from './modules/projects/projects.repository.js';
import { sessionsRepository } from './modules/sessions/sessions.repository.js';
import { translationsRepository } from './modules/translations/translations.repository.js';

export type { ServiceDeps };

export function createServices(deps: ServiceDeps) {
  const db = deps.db.kysely;
  const { clock } = deps;
  const audit = createAuditLog(clock);
  const issueKey = createKeyIssuer({ clock, audit });
  const organizations = organizationsRepository;
  const members = membersRepository;

  const metrics = deps.metrics ?? NO_METRICS;
  const queue = deps.queue ?? createJobQueue(deps.db, deps.config.database);
  const blobs = deps.blobs ?? createBlobStore(deps.config.blobStore);
  const eventStream = createEventStream({ db, log: deps.log ?? pino({ level: 'silent' }) });
  const outbox = createOutbox({
    clock,
    fanOut: createWebhookFanOut({ clock, queue }),
    // Right after the commit that is still under way, the stream reader looks again.
    afterEmit: () => void setTimeout(() => eventStream.nudge(), WAKE_AFTER_MS),
  });
  // Every change of a listing text tells the translation bookkeeping, in the change's transaction.
  const textsChanged = createTranslationTracker({ clock });
  const projects = createProjectsService({
    db,
    clock,
    audit,
    organizations,
    listings: listingsRepository,
    // A new source locale makes every earlier "translated from" meaningless: tracking starts over.
    sourceLocaleChanged: (trx, projectId) => translationsRepository.deleteProjectStates(trx, projectId),
  });
  const writer = createListingWriter({ db, clock, outbox, textsChanged });
  const translationProvider =
    deps.translationProvider ?? createDeepLProvider({ serverUrl: deps.config.deeplApiUrl });
  const details = createDetailsService({ db, clock, keyRing: deps.keyRing, projects, audit });
  const diffs = createDiffs({
    db,
    projects,
    organizations,
    releaseNotes: releaseNotesChangesOf,
    products: productChangesOf,
    details: (executor, projectId) => details.changesOf(executor, projectId),
  });
  const approvals = createApprovals({ clock, audit, projects, diffs, writer, outbox });
  const approvalRequests = createApprovalRequests({ db, clock, audit, projects, diffs, writer, outbox });
  const credentials = createCredentialsService({
    db,
    clock,
    audit,
    keyRing: deps.keyRing,
    connectors: deps.connectors ?? createConnectorFactory(deps.config, { metrics }),
    verifyTranslationKey: (apiKey) => translationProvider.usage(apiKey),
  });
  const translationKeyOf = async (organizationId: string) =>
    (await credentials.deeplKey(organizationId)) ?? deps.config.deeplApiKey;
  const glossaries = createGlossaries({
    db,
    clock,
    audit,
    provider: translationProvider,
    apiKeyOf: translationKeyOf,
  });
  const runner = createOperationRunner({
    db,
    clock,
    outbox,
    audit,
    ...(deps.lockWaitMs !== undefined && { lockWaitMs: deps.lockWaitMs }),
  });
  const listings = createListingsService({ db, clock, projects, writer, audit });
  const releases = createReleasesService({
    db,
    clock,
    projects,
    credentials,
    audit,
    updateListing: (...args) => listings.updateAs(...args),
  });
  const products = createProductsService({
    db,
    clock,
    projects,
    audit,
    outbox,
    limits: deps.config.productLimits,
    textsChanged,
  });
  const storeMedia = createStoreMedia({ db, clock, blobs, organizations });
  const media = createMediaService({
    db,
    clock,
    blobs,
    projects,
    organizations,
    audit,
    pages: { lockOf: (projectId, pageId) => products.pageLock(projectId, pageId) },
  });
  const sync = createSyncService({
    db,
    clock,
    projects,
    credentials,
    runner,
    media: storeMedia,
    releases,
    products,
    details,
    textsChanged,
  });
  const push = createPushService({
    db,
    clock,
    projects,
    credentials,
    diffs,
    approvals,
    runner,
    media: storeMedia,
    releases,
    products,
    details,
  });

  const background = createBackgroundOperations({
    db,
    clock,
    queue,
    runner,
    projects,
    sync,
    push,
    diffs,
    approvals,
    audit,
  });
  const drift = createDriftDetection({ db, clock, queue, outbox, credentials });
  const releaseControls = createReleaseControls({ db, projects, credentials, audit });

  const apiKeys = createApiKeysService({
    db,
    clock,
    audit,
    members,
    issueKey,
    identityVersion: deps.db.identityVersion,
  });
  const sessions = createSessionsService({
    db,
    clock,
    audit,
    publicUrl: deps.config.publicUrl,
    members,
    organizations,
    // Read afresh: the key in the body is not the request's caller, which confirmCaller checks.
    authenticateKey: (authorization) => apiKeys.authenticate(authorization, { fresh: true }),
  });

  return {
    // The caller's organization (REST, MCP) and the operator's setup (CLI, first start), one facade.
    organizations: {
      ...createOrganizationsService({ db, clock, audit, members, invites: invitesRepository }),
      ...createOrganizationSetup({ db, clock, audit, members, issueKey }),
    },
    members: createMembersService({
      db,
      clock,
      audit,
      outbox,
      organizations,
      apiKeys: apiKeysRepository,
      sessions: sessionsRepository,
      knownProjects: projectsRepository.existingIds,
    }),
    invites: createInvitesService({
      db,
      clock,
      audit,
      publicUrl: deps.config.publicUrl,
      organizations,
      members,
      knownProjects: projectsRepository.existingIds,
    }),
    inviteAcceptance: createInviteAcceptance({
      db,
      clock,
      audit,
      outbox,
      organizations,
      members,
      issueKey,
      startSession: sessions.start,
    }),
    apiKeys,
    idempotency: createIdempotencyService({ db, clock, keyRing: deps.keyRing }),
    sessions,
    passkeys: createPasskeysService({
      db,
      clock,
      audit,
      publicUrl: deps.config.publicUrl,
      members,
      startSession: sessions.start,
    }),
    projects,
    listings,
    releases,
    products,
    details,
    diffs,
    approvals,
    approvalRequests,
    fastlane: createFastlaneTransfer({
      db,
      audit,
      projects,
      writer,
      changelogs: {
        files: (ctx, projectId) => releases.changelogFiles(ctx, projectId),
        prepare: (ctx, projectId, notes, newLocales) =>
          releases.prepareChangelogs(ctx, projectId, notes, newLocales),
      },
      details: {
        files: (_ctx, projectId) => details.fastlaneFiles(projectId),
        prepare: (ctx, projectId, files) => details.prepareImport(ctx, projectId, files),
      },
    }),
    credentials,
    sync,
    push,
    operations: createOperationsLog({ db, projects }),
    background,
    releaseControls,
    schedules: createSchedulesService({ db, clock, audit, projects, diffs, approvals }),
    scheduleRunner: createScheduleRunner({
      db,
      clock,
      outbox,
      audit,
      projects,
      diffs,
      writer,
      driftCheck: (projectId, log) => drift.check(projectId, log),
      queuedPush: (ctx, projectId, changeset) => background.queuedPush(ctx, projectId, changeset),
      applyRelease: (ctx, projectId, action) => releaseControls.applyControl(ctx, projectId, action),
      memberOf: async (organizationId, memberId) => {
        const member = await members.find(db, organizationId, memberId);
        return member === undefined ? null : { role: member.role, access: member.access };
      },
    }),
    webhooks: createWebhooksService({
      db,
      clock,
      audit,
      keyRing: deps.keyRing,
      queue,
      outbox,
      retrySchedule: deps.config.webhookRetrySchedule,
      allowPrivate: deps.config.webhookAllowPrivate,
      metrics,
    }),
    drift,
    eventStream,
    outbox,
    queue,
    metrics,
    locales: createLocalesService({ db, projects, listings: listingsRepository }),
    media,
    marketing: createMarketingService({
      db,
      audit,
      projects,
      limits: deps.config.productLimits,
      writer: products.writer,
      media: {
        previews: (projectId) => media.pagePreviews(projectId),
        copyDefault: (ctx, projectId, input) => media.copyIntoPage(ctx, projectId, input),
      },
    }),
    mediaTransfer: createMediaTransfer({ db, clock, blobs, projects, organizations, audit }),
    mediaCollection: createMediaCollection({ db, clock, blobs }),
    blobs,
    translations: createTranslationsService({
      db,
      clock,
      audit,
      projects,
      writer,
      productWriter: products.writer,
      productLimits: deps.config.productLimits,
    }),
    machineTranslation: createMachineTranslation({
      db,
      clock,
      audit,
      projects,
      provider: translationProvider,
      glossaries,
      apiKeyOf: translationKeyOf,
      keptTermsOf: async (organizationId) => {
        const org = await organizations.find(db, organizationId);
        return org === undefined ? [] : parseSettings(org.settings).doNotTranslate;
      },
      productLimits: deps.config.productLimits,
    }),
    glossaries,
  };
}

export type Services = ReturnType<typeof createServices>;
