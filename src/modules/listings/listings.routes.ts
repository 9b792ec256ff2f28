import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { optionalBody } from '../../http/hooks.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, Ok, PageQuery, pageOf, StringEnum } from '../../http/schemas.js';
import type { ApprovalRequests } from './approval-requests.js';
import type { Approvals } from './approvals.js';
import type { FastlaneTransfer } from './fastlane-transfer.js';
import type { Diffs } from './listing-diff.js';
import type { ListingsService } from './listings.service.js';
import { STORE_SELECTIONS } from '../../shared/stores.js';
import { ProjectParams } from '../projects/index.js';
import * as S from './listings.schemas.js';

const tags = ['listings'];
/** An archive in a body, as OpenAPI describes raw bytes. */
const Binary = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });
const ARCHIVE_TYPES = [
  'application/gzip',
  'application/x-gzip',
  'application/x-tar+gzip',
  'application/zip',
  'application/octet-stream',
];

export function listingRoutes(
  app: Api,
  services: {
    listings: ListingsService;
    diffs: Diffs;
    approvals: Approvals;
    approvalRequests: ApprovalRequests;
    fastlane: FastlaneTransfer;
  },
): void {
  const { listings, diffs, approvals, approvalRequests, fastlane } = services;

  app.get('/projects/:projectId/listings', {
    schema: {
      operationId: 'listings.list',
      tags,
      summary: 'All listings of a project',
      description:
        'Every store and locale, each field with `value` (working copy), `base` (store at last sync/push) and state.',
      security: BEARER,
      params: ProjectParams,
      response: { 200: Ok(Type.Object({ listings: Type.Array(S.ListingSchema) })), ...ERRORS },
    },
    handler: async (request) =>
      ok({ listings: await listings.list(contextOf(request), request.params.projectId) }),
  });

  app.get('/projects/:projectId/listings/:store/:locale', {
    schema: {
      operationId: 'listings.get',
      tags,
      summary: 'One listing',
      description:
        'Every field of one store’s listing in one locale: working copy, base (the store’s value at the last sync or push), state and, in a conflict, the store’s value; with the warnings of the field rules.',
      security: BEARER,
      params: S.ListingParams,
      response: { 200: Ok(Type.Object({ listing: S.ListingSchema })), ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, store, locale } = request.params;
      return ok({ listing: await listings.get(contextOf(request), projectId, store, locale) });
    },
  });

  app.patch('/projects/:projectId/listings/:store/:locale', {
    schema: {
      operationId: 'listings.update',
      tags,
      summary: 'Edit a listing (creates the locale if new)',
      description:
        'Partial update; `null` clears a field. Limits of design.md §9 are errors (one `details` entry per field); ' +
        'advice (keyword hygiene, the other platform named, placeholder text) comes back in `data.warnings`.',
      security: BEARER,
      params: S.ListingParams,
      body: S.ListingPatch,
      response: { 200: S.EditResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, store, locale } = request.params;
      return ok(
        await listings.update(
          contextOf(request),
          projectId,
          store,
          locale,
          request.body as Record<string, string | null>,
        ),
      );
    },
  });

  app.post('/projects/:projectId/listings/:store/:locale/validate', {
    schema: {
      operationId: 'listings.validate',
      tags,
      summary: 'Check texts against the store’s rules without saving them',
      description:
        'The same checks as PATCH of the listing — every problem at once, 400 with one `details` entry per field — ' +
        'but nothing is written; answers the advice the listing would get with these texts. For editors and agents ' +
        'that draft before they save.',
      security: BEARER,
      params: S.ListingParams,
      body: S.ListingPatch,
      response: { 200: S.ValidateResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, store, locale } = request.params;
      return ok(
        await listings.validate(
          contextOf(request),
          projectId,
          store,
          locale,
          request.body as Record<string, string | null>,
        ),
      );
    },
  });

  app.delete('/projects/:projectId/listings/:store/:locale', {
    schema: {
      operationId: 'listings.delete',
      tags,
      summary: 'Delete a local locale',
      description:
        'Removes the locale here. If the store has it, it is removed from the store only by a push with `prune: true` ' +
        '(`pendingStoreRemoval`).',
      security: BEARER,
      params: S.ListingParams,
      response: {
        200: Ok(Type.Object({ deleted: Type.Boolean(), pendingStoreRemoval: Type.Boolean() })),
        ...ERRORS,
      },
    },
    handler: async (request) => {
      const { projectId, store, locale } = request.params;
      return ok(await listings.remove(contextOf(request), projectId, store, locale));
    },
  });

  app.get('/projects/:projectId/diff', {
    schema: {
      operationId: 'listings.diff',
      tags,
      summary: 'What a push would change',
      description:
        'Per store, per locale, per field: old (base) → new (working copy). Empty and `inSync` when nothing is pending.',
      security: BEARER,
      params: ProjectParams,
      querystring: Type.Object({
        store: Type.Optional(StringEnum(STORE_SELECTIONS, { default: 'both' })),
      }),
      response: { 200: S.DiffResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await diffs.diff(contextOf(request), request.params.projectId, request.query.store)),
  });

  app.get('/projects/:projectId/listings/:store/:locale/history', {
    schema: {
      operationId: 'listings.history',
      tags,
      summary: 'Change history of a listing',
      description:
        'Every change: who, when, field, old, new, and its source (edit, revert, copy, import, sync, push). Newest first.',
      security: BEARER,
      params: S.ListingParams,
      querystring: PageQuery(),
      response: { 200: S.HistoryResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, store, locale } = request.params;
      const query = pageOf(request.query);
      const page = await listings.history(contextOf(request), projectId, store, locale, query);
      return ok({ ...page, ...query });
    },
  });

  app.post('/projects/:projectId/listings/:store/:locale/revert', {
    schema: {
      operationId: 'listings.revert',
      tags,
      summary: 'Revert a field to a history entry',
      description:
        'Sets the entry\'s field to its value before the entry (`to: "before"`, undo) or after it; recorded as a new change.',
      security: BEARER,
      params: S.ListingParams,
      body: S.RevertBody,
      response: { 200: S.EditResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, store, locale } = request.params;
      return ok(await listings.revert(contextOf(request), projectId, store, locale, request.body));
    },
  });

  app.post('/projects/:projectId/listings/copy', {
    schema: {
      operationId: 'listings.copy',
      tags,
      summary: 'Copy texts between stores or locales',
      description:
        'Maps fields between the stores (App Store name ↔ Play title, subtitle ↔ shortDescription, description ↔ ' +
        'fullDescription) and locale codes (e.g. zh-Hans → zh-CN). Validated like an edit.',
      security: BEARER,
      params: ProjectParams,
      body: S.CopyBody,
      response: { 200: S.CopyResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await listings.copy(contextOf(request), request.params.projectId, request.body)),
  });

  app.post('/projects/:projectId/approvals', {
    preValidation: optionalBody,
    schema: {
      operationId: 'listings.approve',
      tags,
      summary: 'Approve the pending changes',
      description:
        'Admin only. Binds the approval to the current diff; any later edit voids it. With `hash` (from GET ' +
        '/diff), 409 CONFLICT when the pending changes are no longer the ones reviewed.',
      security: BEARER,
      params: ProjectParams,
      body: S.ApproveBody,
      response: { 201: S.ApprovalResponse, ...ERRORS },
    },
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(ok(await approvals.approve(contextOf(request), request.params.projectId, request.body))),
  });

  app.post('/projects/:projectId/approval-requests', {
    preValidation: optionalBody,
    schema: {
      operationId: 'approvalRequests.create',
      tags,
      summary: 'Ask an admin to approve the pending changes',
      description:
        'Members and admins. The request is about the changes as they stand (their diff hash); an ' +
        'approval closes it, and so does any new change. Emits `approval.requested`.',
      security: BEARER,
      params: ProjectParams,
      body: S.ApprovalRequestBody,
      response: { 201: S.ApprovalRequestResponse, ...ERRORS },
    },
    handler: async (request, reply) => {
      const created = await approvalRequests.request(
        contextOf(request),
        request.params.projectId,
        request.body ?? {},
      );
      return reply.code(201).send(ok({ request: created }));
    },
  });

  app.get('/projects/:projectId/approval-requests', {
    schema: {
      operationId: 'approvalRequests.list',
      tags,
      summary: 'The open approval requests',
      description:
        'Requests still waiting for an admin, oldest first: each is about the changes now pending.',
      security: BEARER,
      params: ProjectParams,
      response: { 200: S.ApprovalRequestsResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok({ requests: await approvalRequests.list(contextOf(request), request.params.projectId) }),
  });

  app.get('/projects/:projectId/export', {
    schema: {
      operationId: 'listings.export',
      tags,
      summary: 'Export listings in the fastlane layout',
      description:
        'A tar.gz (default) or zip of `fastlane/metadata/<locale>/*.txt` (deliver) and ' +
        '`fastlane/metadata/android/<language>/*.txt` (supply), with the working copies.',
      security: BEARER,
      params: ProjectParams,
      querystring: Type.Object({
        format: Type.Optional(StringEnum(['fastlane'], { default: 'fastlane' })),
        archive: Type.Optional(StringEnum(['tar.gz', 'zip'], { default: 'tar.gz' })),
      }),
      response: {
        200: {
          description: 'The archive, as an attachment',
          content: Object.fromEntries(
            ['application/gzip', 'application/zip'].map((type) => [type, { schema: Binary }]),
          ),
        },
        ...ERRORS,
      },
    },
    handler: async (request, reply) => {
      const archive = request.query.archive ?? 'tar.gz';
      const body = await fastlane.exportArchive(contextOf(request), request.params.projectId, archive);
      return reply
        .type(archive === 'zip' ? 'application/zip' : 'application/gzip')
        .header(
          'Content-Disposition',
          `attachment; filename="${request.params.projectId}-fastlane.${archive}"`,
        )
        .send(body);
    },
  });

  // The import body is an archive that the service reads as a stream, after it has checked the
  // caller's role and the project: nothing parses it before the handler runs.
  app.register(async (scope: Api) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(ARCHIVE_TYPES, (_request, _payload, done) => done(null));
    scope.post('/projects/:projectId/import', {
      // Re-importing the same archive changes nothing (unchanged values are no edit); a key could
      // not be checked against a body that is read as it streams.
      config: { noIdempotencyKey: 'the archive is read as it streams; importing it again changes nothing' },
      schema: {
        operationId: 'listings.import',
        tags,
        summary: 'Import listings from a fastlane tree',
        description:
          'Body: a tar.gz or zip (Content-Type application/gzip or application/zip, up to 10 MiB): a fastlane folder ' +
          'or a whole repository. The tree read is `fastlane/metadata` (deliver: `<locale>/*.txt`; supply: ' +
          '`android/<language>/*.txt`) or the folder named by `path`; several trees without `path` are 400 listing ' +
          'them. deliver values are trimmed; supply files lose one final line break (single-line fields are trimmed); ' +
          "empty files never clear a field; deliver's `default/` fills the locale folders lacking a file. Validated " +
          'like any edit, all or nothing; everything else in the tree is reported in `skipped` with the reason. ' +
          'The archive may expand to 20 MiB (5 MiB per file, 5,000 files, 16 folders deep); a larger one is 413, and ' +
          'links, paths outside the archive, repeated names or overlapping zip records are 400.',
        security: BEARER,
        params: ProjectParams,
        querystring: S.ImportQuery,
        consumes: ['application/gzip', 'application/zip'],
        response: { 200: S.ImportResponse, ...ERRORS },
      },
      handler: async (request, reply) => {
        try {
          return ok(
            await fastlane.importArchive(
              contextOf(request),
              request.params.projectId,
              request.raw,
              request.query,
            ),
          );
        } catch (error) {
          // Refused before the whole body was read: close the connection rather than drain it.
          if (!request.raw.readableEnded) void reply.header('Connection', 'close');
          throw error;
        }
      },
    });
  });
}
