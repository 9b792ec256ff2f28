/**
 * App details and App Review information on App Store Connect (stores-more.md §C1–C3): the
 * copyright of the version being prepared (else the live one, read-only), the editable appInfo's
 * primary and secondary category (relationships), and the version's App Review details — read,
 * then written by group: one PATCH of the version, one of the appInfo, and the review details
 * PATCHed when the version has them, else POSTed. A group's refusal fails its fields only.
 */
import {
  StoreError,
  type DetailsReport,
  type DetailsWriteOptions,
  type StoreDetails,
} from '../store-connector.js';
import type { AscClient, Counter } from './client.js';
import { appInfo, version, type Container } from './containers.js';
import type { JsonApiResource } from './mapper.js';

export const REVIEW_FIELDS = [
  'contactFirstName',
  'contactLastName',
  'contactPhone',
  'contactEmail',
  'demoAccountName',
  'demoAccountPassword',
  'demoAccountRequired',
  'notes',
];
const CATEGORY_FIELDS = ['primaryCategory', 'secondaryCategory'];

/** A read the store answers 404 for (no category set, no review details yet): nothing. */
async function orNull<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof StoreError && error.status === 404) return null;
    throw error;
  }
}

const noVersion = () =>
  new StoreError(
    'appstore',
    'NOT_EDITABLE',
    'No App Store version is being prepared: copyright and App Review information are written to a version in Prepare for Submission',
    409,
    false,
  );

export function createAscDetails(client: AscClient) {
  const reviewOf = (counter: Counter, ver: Container) =>
    orNull(client.call(counter, 'GET', `/v1/appStoreVersions/${ver.id}/appStoreReviewDetail`)).then(
      (answer) => (answer?.data as JsonApiResource | undefined) ?? null,
    );
  const categoryOf = async (counter: Counter, info: Container, which: string) => {
    const answer = await orNull(client.call(counter, 'GET', `/v1/appInfos/${info.id}/${which}`));
    return (answer?.data as JsonApiResource | undefined)?.id ?? null;
  };

  async function read(counter: Counter, appId: string): Promise<StoreDetails> {
    const [info, ver] = await Promise.all([appInfo(client, counter, appId), version(client, counter, appId)]);
    const [versionResource, primary, secondary, review] = await Promise.all([
      ver === null ? null : client.call(counter, 'GET', `/v1/appStoreVersions/${ver.id}`),
      info === null ? null : categoryOf(counter, info, 'primaryCategory'),
      info === null ? null : categoryOf(counter, info, 'secondaryCategory'),
      ver === null ? null : reviewOf(counter, ver),
    ]);
    const copyright = (versionResource?.data as JsonApiResource | undefined)?.attributes?.copyright;
    return {
      copyright: typeof copyright === 'string' ? copyright : null,
      primaryCategory: primary,
      secondaryCategory: secondary,
      ...Object.fromEntries(
        REVIEW_FIELDS.map((name) => {
          const value = review?.attributes?.[name];
          return [`review.${name}`, typeof value === 'string' || typeof value === 'boolean' ? value : null];
        }),
      ),
    };
  }

  async function write(
    counter: Counter,
    appId: string,
    changes: StoreDetails,
    options: DetailsWriteOptions,
  ): Promise<Omit<DetailsReport, 'calls'>> {
    const report = { written: [] as string[], failures: [] as DetailsReport['failures'] };
    const [info, ver] = await Promise.all([appInfo(client, counter, appId), version(client, counter, appId)]);
    /** One group of fields written by `work`: all taken, or all refused with the store's reason. */
    const group = async (fields: string[], work: () => Promise<void>) => {
      if (fields.length === 0) return;
      try {
        await options.beforeWrite?.();
        await work();
        report.written.push(...fields);
      } catch (error) {
        if (!(error instanceof StoreError) || error.code === 'CANCELLED') throw error;
        const refusal = { code: error.code, message: error.message };
        report.failures.push(...fields.map((field) => ({ field, error: refusal })));
      }
    };
    const editableVersion = () => {
      if (ver === null || !ver.editable) throw noVersion();
      return ver;
    };

    await group(Object.hasOwn(changes, 'copyright') ? ['copyright'] : [], async () => {
      const { id } = editableVersion();
      await client.call(counter, 'PATCH', `/v1/appStoreVersions/${id}`, {
        data: { type: 'appStoreVersions', id, attributes: { copyright: changes.copyright } },
      });
    });
    const categories = CATEGORY_FIELDS.filter((f) => Object.hasOwn(changes, f));
    await group(categories, async () => {
      if (info === null || !info.editable) {
        throw new StoreError(
          'appstore',
          'NOT_EDITABLE',
          'No app info is being prepared: categories change with a new App Store version',
          409,
          false,
        );
      }
      const relationships = Object.fromEntries(
        categories.map((f) => [
          f,
          { data: changes[f] === null ? null : { type: 'appCategories', id: changes[f] } },
        ]),
      );
      await client.call(counter, 'PATCH', `/v1/appInfos/${info.id}`, {
        data: { type: 'appInfos', id: info.id, relationships },
      });
    });
    const review = REVIEW_FIELDS.filter((name) => Object.hasOwn(changes, `review.${name}`));
    await group(
      review.map((name) => `review.${name}`),
      async () => {
        const { id: versionId } = editableVersion();
        const attributes = Object.fromEntries(review.map((name) => [name, changes[`review.${name}`]]));
        const existing = await reviewOf(counter, { id: versionId, editable: true });
        if (existing !== null) {
          await client.call(counter, 'PATCH', `/v1/appStoreReviewDetails/${existing.id}`, {
            data: { type: 'appStoreReviewDetails', id: existing.id, attributes },
          });
        } else {
          await client.call(counter, 'POST', '/v1/appStoreReviewDetails', {
            data: {
              type: 'appStoreReviewDetails',
              attributes,
              relationships: { appStoreVersion: { data: { type: 'appStoreVersions', id: versionId } } },
            },
          });
        }
      },
    );
    return report;
  }

  return { read, write };
}
