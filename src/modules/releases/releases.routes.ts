import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, Ok } from '../../http/schemas.js';
import { Type } from '@sinclair/typebox';
import { ProjectParams } from '../projects/index.js';
import type { ReleasesService } from './releases.service.js';
import * as S from './releases.schemas.js';

const tags = ['releases'];

/** Versions, tracks and release notes (design.md §13): thin adapters over the releases service. */
export function releaseRoutes(app: Api, services: { releases: ReleasesService }): void {
  const { releases } = services;

  app.get('/projects/:projectId/releases', {
    schema: {
      operationId: 'releases.list',
      tags,
      summary: 'App Store versions and Google Play tracks, as the last sync read them',
      description:
        'What the last sync read: App Store versions (state, editable, first version) and Google Play tracks with their releases (status, rollout fraction, notes). Sync to refresh it.',
      security: BEARER,
      params: ProjectParams,
      response: { 200: S.ReleasesResponse, ...ERRORS },
    },
    handler: async (request) => ok(await releases.list(contextOf(request), request.params.projectId)),
  });

  app.post('/projects/:projectId/releases/appstore', {
    schema: {
      operationId: 'releases.create',
      tags,
      summary: 'Creates the next App Store version',
      description:
        "Refused by App Store Connect while an unreleased version exists or for a version string used before: 409 with the store's reason.",
      security: BEARER,
      params: ProjectParams,
      body: S.CreateVersionBody,
      response: { 201: S.CreateVersionResponse, ...ERRORS },
    },
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await releases.createVersion(
              contextOf(request),
              request.params.projectId,
              request.body.versionString,
            ),
          ),
        ),
  });

  app.get('/projects/:projectId/release-notes', {
    schema: {
      operationId: 'releaseNotes.list',
      tags,
      summary: 'Release notes per locale, with base and working copy',
      description:
        'App Store What’s New of a version (default: the one being prepared) or Google Play notes per release of a track, per locale with their state against the store.',
      security: BEARER,
      params: ProjectParams,
      querystring: S.NotesQuery,
      response: { 200: S.NotesResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await releases.notes(contextOf(request), request.params.projectId, request.query)),
  });

  app.patch('/projects/:projectId/release-notes/appstore/:versionString/:locale', {
    schema: {
      operationId: 'releaseNotes.updateAppStore',
      tags,
      summary: "What's New of an App Store version in one locale",
      description:
        "Only on the version being prepared, never on an app's first version (409 saying why, before any store call); at most 4,000 characters.",
      security: BEARER,
      params: S.AppStoreNoteParams,
      body: S.NoteBody,
      response: { 200: Ok(Type.Record(Type.String(), Type.Unknown())), ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, versionString, locale } = request.params;
      return ok({
        ...(await releases.updateAppStoreNote(
          contextOf(request),
          projectId,
          versionString,
          locale,
          request.body.text,
        )),
      });
    },
  });

  app.get('/projects/:projectId/release-notes/playstore/:track/:versionCode/:locale/history', {
    schema: {
      operationId: 'releaseNotes.history',
      tags,
      summary: "A Google Play note's changes, newest first",
      description:
        'Every change of one Google Play release note (track, version code, language), with who made it and where it came from, newest first; paged.',
      security: BEARER,
      params: S.PlayNoteParams,
      querystring: S.NoteHistoryQuery,
      response: { 200: S.NoteHistoryResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, track, versionCode, locale } = request.params;
      return ok(
        await releases.history(
          contextOf(request),
          projectId,
          { track, versionCode, locale },
          { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 },
        ),
      );
    },
  });

  app.post('/projects/:projectId/release-notes/playstore/revert', {
    schema: {
      operationId: 'releaseNotes.revert',
      tags,
      summary: 'Sets a Google Play note back to its text before (or after) a history entry',
      description:
        'Writes the note as it was before (or, with `after`, just after) a history entry, as a new change with its own history entry. Pending until pushed.',
      security: BEARER,
      params: ProjectParams,
      body: S.RevertBody,
      response: { 200: S.PlayNoteResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await releases.revert(contextOf(request), request.params.projectId, request.body)),
  });

  app.post('/projects/:projectId/release-notes/copy', {
    schema: {
      operationId: 'releaseNotes.copy',
      tags,
      summary: "Copies release notes into a Google Play release (from What's New or another release)",
      description:
        'Locales are mapped to Play languages; every note is checked first (500 characters, a listing in that language): one too long is refused, never cut; all or nothing.',
      security: BEARER,
      params: ProjectParams,
      body: S.CopyBody,
      response: { 200: S.PlayNotesResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await releases.copy(contextOf(request), request.params.projectId, request.body)),
  });

  app.patch('/projects/:projectId/release-notes/playstore/:track/:versionCode/:locale', {
    schema: {
      operationId: 'releaseNotes.updatePlay',
      tags,
      summary: "Google Play notes of the track's release that contains a version code, in one language",
      description:
        'At most 500 characters, never empty (null removes), only in languages that have a listing; pushed with the texts, written into the track as read.',
      security: BEARER,
      params: S.PlayNoteParams,
      body: S.NoteBody,
      response: { 200: S.PlayNoteResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, track, versionCode, locale } = request.params;
      return ok(
        await releases.updatePlayNote(
          contextOf(request),
          projectId,
          { track, versionCode, locale },
          request.body.text,
        ),
      );
    },
  });
}
