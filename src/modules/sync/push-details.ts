/**
 * The details part of a store's push (design.md §19): the changed app details and App Review
 * information, planned from the approved changeset (a detail in conflict left out), written in one
 * connector call that fails only the groups the store refuses, recorded, and folded into the
 * store's outcome. The demo account password leaves appmeta only here, to the store.
 */
import { StoreError, type DetailsReport, type StoreConnector } from '../../connectors/store-connector.js';
import { STORE_LABEL, type Store } from '../../shared/stores.js';
import type { RequestContext } from '../access/index.js';
import type { DetailsService } from '../details/index.js';
import type { Changeset } from '../listings/index.js';
import type { Project } from '../projects/index.js';
import type { OperationControl } from './operation-runner.js';
import { appRef, type Failure, type StorePushResult } from './sync.js';

export type DetailsPushDeps = { details: Pick<DetailsService, 'pushPlan' | 'recordPush'> };

export function createDetailsPush({ details }: DetailsPushDeps) {
  return async function pushDetails(
    ctx: RequestContext,
    project: Project,
    store: Store,
    changeset: Changeset,
    options: { changesNotSentForReview?: boolean },
    connectorFor: () => Promise<StoreConnector | null>,
    control: OperationControl,
    before: StorePushResult,
  ): Promise<StorePushResult> {
    const plan = await details.pushPlan(project.id, changeset, store);
    const fields = Object.keys(plan.changes);
    if (fields.length === 0 && plan.conflicts.length === 0) return before;
    const failures: Failure[] = plan.conflicts.map((field) => ({
      store,
      locale: null,
      field: `details.${field}`,
      error: {
        code: 'CONFLICT',
        message: 'The store changed this detail too: edit it here to choose, then push',
      },
    }));
    let report: Omit<DetailsReport, 'calls'> = { written: [], failures: [] };
    if (fields.length > 0) {
      try {
        const client = await connectorFor();
        if (client === null)
          throw new StoreError(
            store,
            'CREDENTIALS_MISSING',
            `No ${STORE_LABEL[store]} credentials`,
            null,
            false,
          );
        report = await client.writeDetails(appRef(project, store), plan.changes, {
          beforeWrite: control.beforeWrite(store),
          changesNotSentForReview: options.changesNotSentForReview ?? false,
        });
      } catch (error) {
        if (!(error instanceof StoreError) || error.code === 'CANCELLED') throw error;
        const refusal = { code: error.code, message: error.message };
        report = { written: [], failures: fields.map((field) => ({ field, error: refusal })) };
      }
    }
    await details.recordPush(
      project.id,
      store,
      report.written.map((field) => ({ field, value: plan.sent.get(field) ?? null })),
    );
    failures.push(
      ...report.failures.map((f) => ({ store, locale: null, field: `details.${f.field}`, error: f.error })),
    );
    ctx.log.info({ store, details: report.written.length, failed: failures.length }, 'store details written');
    const allFailures = [...before.failures, ...failures];
    const outcome = {
      ...before.outcome,
      pushed: before.outcome.pushed && failures.length === 0,
      ...(report.written.length > 0 && { details: report.written.length }),
    };
    if (allFailures.length > 0 && (outcome.error === undefined || outcome.error.code === 'PARTIAL_FAILURE')) {
      outcome.error = {
        code: 'PARTIAL_FAILURE',
        message: `${allFailures.length} change(s) were not accepted by ${STORE_LABEL[store]}; see data.failures`,
      };
    }
    return { ...before, outcome, failures: allFailures };
  };
}
