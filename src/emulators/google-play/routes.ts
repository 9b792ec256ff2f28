/**
 * A Google Play Developer API v3 emulator (tests, demos, benchmarks only): the edit lifecycle
 * (snapshot, expiry, invalidation, commit) and listings, with Google's limits and error bodies —
 * every request and response checked against Google's discovery document (stores.md §8).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Faults } from '../faults.js';
import { googlePlaySpec } from '../spec-validator.js';
import { PlayFailure, sendFailure } from './errors.js';
import { FIELD_WORDS, LIMITS, LOCALES } from './rules.js';
import { checkImagesAtCommit, registerPlayImages } from './images.js';
import { checkTracksAtCommit, registerPlayTracks } from './tracks.js';
import { copyImages, copyTracks, type Edit, type Listing, type PlayState } from './state.js';
import { registerTokenEndpoint } from './token.js';
import { registerPlayProducts } from './products.js';
import { checkDetailsAtCommit, registerPlayDetails } from './details.js';
import { playAuthentication, playErrors, requireApp, requireOpenEdit, type Req } from './access.js';

export function registerGooglePlayEmulator(app: FastifyInstance, state: PlayState, faults: Faults): void {
  const spec = googlePlaySpec();

  const respond = (reply: FastifyReply, schema: string | null, body: unknown) => {
    if (schema !== null) {
      const problem = spec.check(schema, body);
      if (problem !== null) throw new Error(`emulator response does not match ${schema}: ${problem}`);
    }
    return reply.code(200).type('application/json').send(body);
  };

  registerTokenEndpoint(app, state, faults);
  const imageRoutes = registerPlayImages(app, state, faults, spec);
  const trackRoutes = registerPlayTracks(state, spec);
  const productRoutes = registerPlayProducts(state, spec);
  const detailsRoutes = registerPlayDetails(state, spec);

  app.register(
    async (scope) => {
      scope.addHook('onRequest', playAuthentication(state, faults));
      scope.setErrorHandler(playErrors);
      scope.setNotFoundHandler((request, reply) =>
        sendFailure(reply, new PlayFailure(404, 'NOT_FOUND', `Not found: ${request.url}`, 'notFound')),
      );

      imageRoutes(scope);
      productRoutes(scope);
      const base = '/applications/:packageName';
      const requireEdit = (request: Req, id: string) => requireOpenEdit(state, request, id);
      trackRoutes(scope, requireEdit);

      const appEdit = (edit: Edit) => ({
        id: edit.id,
        expiryTimeSeconds: String(Math.floor(edit.expiresAt / 1000)),
      });

      const checkListing = (language: string, listing: Listing) => {
        if (!LOCALES.has(language))
          throw new PlayFailure(400, 'INVALID_ARGUMENT', `Invalid language code: ${language}`, 'badRequest');
        for (const [field, limit] of Object.entries(LIMITS)) {
          const value = listing[field as keyof typeof LIMITS];
          if (value !== undefined && [...value].length > limit) {
            throw new PlayFailure(
              403,
              'PERMISSION_DENIED',
              `The ${FIELD_WORDS[field as keyof typeof LIMITS]} for the app is too long for language ${language}.`,
              'forbidden',
            );
          }
        }
      };

      const checkBody = (body: unknown) => {
        const problem = spec.check('Listing', body);
        if (problem !== null)
          throw new PlayFailure(
            400,
            'INVALID_ARGUMENT',
            `Invalid JSON payload received. ${problem}`,
            'badRequest',
          );
        return body as Listing;
      };

      scope.post(`${base}/edits`, async (request: Req, reply) => {
        const target = requireApp(state, request);
        const problem = spec.check('AppEdit', request.body ?? {});
        if (problem !== null) throw new PlayFailure(400, 'INVALID_ARGUMENT', problem, 'badRequest');
        const owner = (request as Req & { account?: string }).account ?? '';
        // One active edit per user per app: a new edit invalidates this account's older ones.
        for (const old of state.edits.values()) {
          if (old.packageName === target.packageName && old.owner === owner && old.status === 'open')
            old.status = 'deleted';
        }
        const edit: Edit = {
          id: String(Date.now()) + randomBytes(4).toString('hex'),
          packageName: target.packageName,
          owner,
          listings: new Map([...target.listings].map(([language, listing]) => [language, { ...listing }])),
          details: { defaultLanguage: target.defaultLanguage, ...target.contact },
          detailsChanged: false,
          images: copyImages(target.images),
          tracks: copyTracks(target.tracks),
          expiresAt: state.now() + state.editTtl * 1000,
          status: 'open',
        };
        state.edits.set(edit.id, edit);
        state.counters.editsInserted += 1;
        return respond(reply, 'AppEdit', appEdit(edit));
      });

      // edits.get, and :commit / :validate, which share the path segment "<editId>:<action>".
      scope.get(`${base}/edits/:editId`, async (request: Req, reply) =>
        respond(reply, 'AppEdit', appEdit(requireEdit(request, request.params.editId!).edit)),
      );
      scope.post(`${base}/edits/:editId`, async (request: Req, reply) => {
        const [id = '', action] = request.params.editId!.split(':');
        const { app: target, edit } = requireEdit(request, id);
        if (action === 'validate') return respond(reply, 'AppEdit', appEdit(edit));
        if (action !== 'commit')
          throw new PlayFailure(404, 'NOT_FOUND', `Unknown action ${action}`, 'notFound');
        const flag = (request.query as Record<string, string | undefined>).changesNotSentForReview;
        if (target.manualReview && flag !== 'true') {
          throw new PlayFailure(
            400,
            'FAILED_PRECONDITION',
            'Changes cannot be sent for review automatically. Please set the query parameter changesNotSentForReview to true.',
            'badRequest',
          );
        }
        if (!target.manualReview && flag === 'true') {
          throw new PlayFailure(
            400,
            'FAILED_PRECONDITION',
            'Changes are sent for review automatically. The query parameter changesNotSentForReview must not be set.',
            'badRequest',
          );
        }
        // Validated as a whole before anything changes: a refused commit leaves the app as it was.
        checkImagesAtCommit(edit.images, state.imageRules, edit.listings.keys());
        checkTracksAtCommit(edit);
        checkDetailsAtCommit(edit);
        const { defaultLanguage, ...contact } = edit.details;
        target.defaultLanguage = defaultLanguage;
        target.contact = contact;
        target.listings = new Map(
          [...edit.listings].map(([language, listing]) => [language, { ...listing }]),
        );
        target.images = copyImages(edit.images);
        target.tracks = copyTracks(edit.tracks);
        edit.status = 'committed';
        state.counters.editsCommitted += 1;
        // The first commit invalidates every other open edit of the app.
        for (const other of state.edits.values()) {
          if (other.packageName === target.packageName && other.status === 'open') other.status = 'deleted';
        }
        return respond(reply, 'AppEdit', appEdit(edit));
      });
      scope.delete(`${base}/edits/:editId`, async (request: Req, reply) => {
        const { edit } = requireEdit(request, request.params.editId!);
        edit.status = 'deleted';
        state.counters.editsDeleted += 1;
        return reply.code(204).send();
      });

      detailsRoutes(scope, requireEdit);

      scope.get(`${base}/edits/:editId/listings`, async (request: Req, reply) => {
        const { edit } = requireEdit(request, request.params.editId!);
        return respond(reply, 'ListingsListResponse', {
          kind: 'androidpublisher#listingsListResponse',
          listings: [...edit.listings.values()].sort((a, b) => (a.language < b.language ? -1 : 1)),
        });
      });

      scope.get(`${base}/edits/:editId/listings/:language`, async (request: Req, reply) => {
        const { edit } = requireEdit(request, request.params.editId!);
        const listing = edit.listings.get(request.params.language!);
        if (listing === undefined) throw new PlayFailure(404, 'NOT_FOUND', 'Listing not found.', 'notFound');
        return respond(reply, 'Listing', listing);
      });

      // PUT creates or replaces a language's listing; PATCH merges into an existing one.
      scope.put(`${base}/edits/:editId/listings/:language`, async (request: Req, reply) => {
        const { edit } = requireEdit(request, request.params.editId!);
        const language = request.params.language!;
        const listing = { ...checkBody(request.body), language };
        checkListing(language, listing);
        edit.listings.set(language, listing);
        return respond(reply, 'Listing', listing);
      });
      scope.patch(`${base}/edits/:editId/listings/:language`, async (request: Req, reply) => {
        const { edit } = requireEdit(request, request.params.editId!);
        const language = request.params.language!;
        const current = edit.listings.get(language);
        if (current === undefined) throw new PlayFailure(404, 'NOT_FOUND', 'Listing not found.', 'notFound');
        const merged = { ...current, ...checkBody(request.body), language };
        for (const key of Object.keys(merged) as (keyof Listing)[])
          if (merged[key] === '') delete merged[key];
        checkListing(language, merged);
        edit.listings.set(language, merged);
        return respond(reply, 'Listing', merged);
      });
      scope.delete(`${base}/edits/:editId/listings/:language`, async (request: Req, reply) => {
        const { edit } = requireEdit(request, request.params.editId!);
        edit.listings.delete(request.params.language!);
        return reply.code(204).send();
      });
    },
    { prefix: '/androidpublisher/v3' },
  );
}
