/**
 * What differs between the App Store's purchase families — in-app purchases, subscriptions,
 * subscription groups — in the emulator: resource types, schema names, relationship names, paths
 * and the texts a localization carries (stores-more.md §A2). The routes are one set over this table.
 */
import type { Family } from './purchases-state.js';

/** What differs between the families: names of types, schemas, relationships, paths, texts. */
export const FAMILIES: Record<
  Family,
  {
    type: string;
    /** The container's own path (IAPs live under /v2), and the schema of its answer. */
    path: string;
    containerSchema: string;
    localization: string;
    schema: string;
    version: string;
    versionSchema: string;
    /** The v1 localization's relationship to its container, and a version's. */
    v1Relationship: string;
    versionRelationship: string;
    texts: string[];
  }
> = {
  inAppPurchase: {
    type: 'inAppPurchases',
    path: '/v2/inAppPurchases',
    containerSchema: 'InAppPurchaseV2Response',
    localization: 'inAppPurchaseLocalizations',
    schema: 'InAppPurchaseLocalization',
    version: 'inAppPurchaseVersions',
    versionSchema: 'InAppPurchaseVersion',
    v1Relationship: 'inAppPurchaseV2',
    versionRelationship: 'inAppPurchase',
    texts: ['name', 'description'],
  },
  subscription: {
    type: 'subscriptions',
    path: '/v1/subscriptions',
    containerSchema: 'SubscriptionResponse',
    localization: 'subscriptionLocalizations',
    schema: 'SubscriptionLocalization',
    version: 'subscriptionVersions',
    versionSchema: 'SubscriptionVersion',
    v1Relationship: 'subscription',
    versionRelationship: 'subscription',
    texts: ['name', 'description'],
  },
  subscriptionGroup: {
    type: 'subscriptionGroups',
    path: '/v1/subscriptionGroups',
    containerSchema: 'SubscriptionGroupResponse',
    localization: 'subscriptionGroupLocalizations',
    schema: 'SubscriptionGroupLocalization',
    version: 'subscriptionGroupVersions',
    versionSchema: 'SubscriptionGroupVersion',
    v1Relationship: 'subscriptionGroup',
    versionRelationship: 'subscriptionGroup',
    texts: ['name', 'customAppName'],
  },
};
