/**
 * Release controls (design.md §20): the App Store release type and phased release of the newest
 * version, Google Play staged rollouts — read and applied through the stores' official APIs, now
 * or by a schedule. Each control is checked before any store call; the store's refusal (a state
 * that does not allow it) is a 409 with its words.
 */
import {
  StoreError,
  type ReleaseControl,
  type ReleaseControlAction,
  type StoreReleaseControls,
} from '../../connectors/store-connector.js';
import { AppError, invalidField } from '../../errors.js';
import { STORE_LABEL, type Store } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import { isLinked, STORE_IDENTIFIER, type Project } from '../projects/index.js';
import type { ReleasesServiceDeps } from './release-rules.js';

/** A release control of one store of a project. */
export type ReleaseAction = ReleaseControl & { store: Store };

export const APP_STORE_ACTIONS = [
  'setReleaseType',
  'enablePhasedRelease',
  'pausePhasedRelease',
  'resumePhasedRelease',
  'completePhasedRelease',
] as const;
export const PLAY_ACTIONS = [
  'setRolloutFraction',
  'haltRollout',
  'resumeRollout',
  'completeRollout',
] as const;
const RELEASE_TYPES = ['MANUAL', 'AFTER_APPROVAL', 'SCHEDULED'];

export interface ReleaseActionInput {
  store: string;
  action: string;
  releaseType?: string;
  earliestReleaseDate?: string;
  track?: string;
  fraction?: number;
}

/** Checks a control against the project (its store linked) and the store's rules; answers it typed. */
export function releaseActionOf(project: Project, input: ReleaseActionInput, at = 'release'): ReleaseAction {
  const store = input.store as Store;
  if (store !== 'appstore' && store !== 'playstore') {
    throw invalidField(`${at}.store`, 'must be appstore or playstore');
  }
  if (!isLinked(project, store)) {
    throw invalidField(`${at}.store`, `the project has no ${STORE_IDENTIFIER[store]}`);
  }
  const actions: readonly string[] = store === 'appstore' ? APP_STORE_ACTIONS : PLAY_ACTIONS;
  if (!actions.includes(input.action)) {
    throw invalidField(`${at}.action`, `${STORE_LABEL[store]} takes ${actions.join(', ')}`);
  }
  const action = input.action as ReleaseControlAction;
  if (action === 'setReleaseType') {
    if (!RELEASE_TYPES.includes(input.releaseType ?? '')) {
      throw invalidField(`${at}.releaseType`, `must be one of ${RELEASE_TYPES.join(', ')}`);
    }
    const releaseType = input.releaseType as 'MANUAL' | 'AFTER_APPROVAL' | 'SCHEDULED';
    if (releaseType !== 'SCHEDULED') return { store, action, releaseType };
    const date = input.earliestReleaseDate;
    if (
      date === undefined ||
      Number.isNaN(Date.parse(date)) ||
      !/T\d{2}:00(:00(\.0+)?)?(Z|[+-]\d{2}:\d{2})$/.test(date)
    ) {
      throw invalidField(
        `${at}.earliestReleaseDate`,
        'SCHEDULED needs the earliest release as a time on the hour with an offset, e.g. 2027-03-28T09:00:00+02:00',
      );
    }
    return { store, action, releaseType, earliestReleaseDate: new Date(date).toISOString() };
  }
  if (store === 'appstore') return { store, action } as ReleaseAction;
  const track = input.track?.trim() ?? '';
  if (track === '') throw invalidField(`${at}.track`, 'name the track (production, beta, …)');
  if (action === 'setRolloutFraction') {
    const fraction = input.fraction;
    if (typeof fraction !== 'number' || !(fraction > 0 && fraction < 1)) {
      throw invalidField(
        `${at}.fraction`,
        'must be between 0 and 1 (0.2 is 20% of users); 1 is completeRollout',
      );
    }
    return { store, action, track, fraction };
  }
  return { store, action: action as 'haltRollout', track };
}

export interface ReleaseControlsView {
  appStore: NonNullable<StoreReleaseControls['version']> | null;
  playStore: NonNullable<StoreReleaseControls['rollouts']> | null;
}

export function createReleaseControls(
  deps: Pick<ReleasesServiceDeps, 'db' | 'projects' | 'credentials' | 'audit'>,
) {
  const { db, projects, credentials } = deps;

  async function connectorOf(ctx: RequestContext, store: Store) {
    const connector = await credentials.connectorFor(ctx.organizationId, store);
    if (connector === null) {
      throw new AppError(
        'CONFLICT',
        `No ${STORE_LABEL[store]} credentials are set for this organization: an admin sets them with PUT /api/v1/organization/credentials/${store}`,
      );
    }
    return connector;
  }

  const refusal = (store: Store, error: StoreError) =>
    new AppError('CONFLICT', `${STORE_LABEL[store]} refused it: ${error.message}`, [
      { field: 'action', message: `${error.code}: ${error.message}` },
    ]);

  return {
    /** Each linked store's release controls as the store has them now. */
    async getControls(ctx: RequestContext, projectId: string): Promise<ReleaseControlsView> {
      authorize(ctx, 'releaseControls.get');
      const project = await projects.require(ctx, projectId);
      const read = async (store: Store) => {
        if (!isLinked(project, store)) return null;
        const ref = (store === 'appstore' ? project.appStoreAppId : project.playStorePackageName)!;
        try {
          return await (await connectorOf(ctx, store)).readReleaseControls(ref);
        } catch (error) {
          if (error instanceof StoreError) throw refusal(store, error);
          throw error;
        }
      };
      const [appStore, playStore] = await Promise.all([read('appstore'), read('playstore')]);
      return { appStore: appStore?.version ?? null, playStore: playStore?.rollouts ?? null };
    },

    /** Applies one control now (a person, or a schedule at its time) and audits it. */
    async applyControl(
      ctx: RequestContext,
      projectId: string,
      input: ReleaseActionInput,
    ): Promise<{ action: ReleaseAction; controls: ReleaseControlsView }> {
      authorize(ctx, 'releaseControls.apply');
      const project = await projects.require(ctx, projectId);
      const action = releaseActionOf(project, input, 'body');
      const { store, ...control } = action;
      const ref = (store === 'appstore' ? project.appStoreAppId : project.playStorePackageName)!;
      let after: StoreReleaseControls;
      try {
        after = await (await connectorOf(ctx, store)).applyReleaseControl(ref, control);
      } catch (error) {
        if (error instanceof StoreError) throw refusal(store, error);
        throw error;
      }
      await db
        .transaction()
        .execute((trx) =>
          deps.audit.record(
            trx,
            ctx,
            'releaseControls.apply',
            { type: 'project', id: projectId },
            { ...action },
          ),
        );
      ctx.log.info({ projectId, store, action: action.action }, 'release control applied');
      return {
        action,
        controls: {
          appStore: store === 'appstore' ? (after.version ?? null) : null,
          playStore: store === 'playstore' ? (after.rollouts ?? null) : null,
        },
      };
    },
  };
}

export type ReleaseControls = ReturnType<typeof createReleaseControls>;
