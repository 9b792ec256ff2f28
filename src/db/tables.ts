/**
 * Row types of every table, as Kysely sees them. Timestamps are ISO 8601 strings (UTC, ms, Z) on
 * both dialects: they sort correctly as text and need no per-dialect conversion. JSON columns are
 * text, parsed by the repositories' mappers.
 */
import type { Generated } from 'kysely';

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: string;
  settings: string;
  /** Kept in the same transaction as project inserts/deletes, so list totals and quotas need no count(*). */
  project_count: Generated<number>;
  /** Bytes of the distinct media files the organization holds (organization_blobs), same transaction. */
  media_bytes: Generated<number>;
  created_at: string;
}

export interface MembersTable {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  role: string;
  status: string;
  last_active_at: string | null;
  joined_at: string;
  /** The member's scope as JSON (design.md §16); null: every project and locale. */
  access: string | null;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  member_id: string;
  name: string;
  /** SHA-256 hex of the whole secret; the secret itself is never stored. */
  token_hash: string;
  /** First characters of the secret, so a person can recognise a key in a list. */
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  app_store_app_id: string | null;
  play_store_package_name: string | null;
  created_at: string;
  updated_at: string;
  last_synced_at: string | null;
  operation_id: string | null;
  operation_expires_at: string | null;
  drift_checked_at: Generated<string | null>;
  source_locale: string | null;
}

export interface InvitesTable {
  id: string;
  organization_id: string;
  email: string;
  role: string;
  status: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  member_id: string | null;
  /** The scope the invitee's member gets (JSON); null: every project and locale. */
  access: string | null;
}

export interface AuditLogTable {
  id: string;
  organization_id: string;
  actor_member_id: string | null;
  /** The operator's label when no member acted (`cli:<os user>`). */
  actor_operator: string | null;
  actor_key_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  details: string | null;
  created_at: string;
  /** Who acted, as they were called then: the member's name or the operator's label. */
  actor_name: string | null;
  /** The project the change was made in, and its name then; null for organization-wide changes. */
  project_id: string | null;
  project_name: string | null;
}

export interface SystemStateTable {
  key: string;
  value: string;
}

export interface ListingsTable {
  id: string;
  organization_id: string;
  project_id: string;
  store: string;
  locale: string;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface ListingFieldsTable {
  listing_id: string;
  field: string;
  value: string | null;
  base: string | null;
  conflict_value: string | null;
  in_conflict: number;
  updated_at: string;
}

export interface TranslationStatesTable {
  project_id: string;
  store: string;
  locale: string;
  field: string;
  source_value: string | null;
  source_hash: string | null;
  draft_value: string | null;
  draft_source_value: string | null;
  draft_source_hash: string | null;
  draft_provider: string | null;
  draft_note: string | null;
  draft_at: string | null;
  updated_at: string;
}

export interface TranslationGlossariesTable {
  organization_id: string;
  source_language: string;
  target_language: string;
  entries: string;
  provider_glossary_id: string | null;
  provider_entries_hash: string | null;
  updated_at: string;
}

export interface TranslationUsageTable {
  organization_id: string;
  period: string;
  characters: Generated<number>;
  requests: Generated<number>;
}

export interface ListingHistoryTable {
  id: string;
  organization_id: string;
  project_id: string;
  store: string;
  locale: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  source: string;
  actor_member_id: string | null;
  /** The operator's label when no member acted (`cli:<os user>`). */
  actor_operator: string | null;
  created_at: string;
}

export interface ApprovalsTable {
  id: string;
  organization_id: string;
  project_id: string;
  diff_hash: string;
  approved_by: string;
  created_at: string;
}

/** A member's request that an admin approve a project's pending changes (design.md §15). */
export interface ApprovalRequestsTable {
  id: string;
  organization_id: string;
  project_id: string;
  /** The pending changeset's hash when the request was made. */
  diff_hash: string;
  /** The requesting member; null for the operator. */
  requested_by: string | null;
  note: string | null;
  /** `open`, `approved` (an approval closed it) or `superseded` (a new change closed it). */
  status: string;
  created_at: string;
  closed_at: string | null;
  closed_by: string | null;
}

export interface StoreCredentialsTable {
  organization_id: string;
  store: string;
  key_id: string;
  iv: string;
  ciphertext: string;
  auth_tag: string;
  metadata: string;
  created_at: string;
  updated_at: string;
  /** JSON {at, verified, code?, message?}: the last check with the store; null until checked. */
  last_verification?: string | null;
}

/** A scheduled push or release control (design.md §20). */
export interface SchedulesTable {
  id: string;
  organization_id: string;
  project_id: string;
  /** `push` (a changeset by its hash) or `release` (a release control). */
  kind: string;
  /** scheduled, running, live (a campaign waiting to revert), reverting, completed, held, failed, cancelled. */
  status: string;
  hash: string | null;
  /** JSON of the release control, for kind `release`. */
  release: string | null;
  /** UTC ISO times. */
  at: string;
  revert_at: string | null;
  /** The IANA zone it was entered in, for showing it as entered. */
  time_zone: string | null;
  note: string | null;
  actor_member_id: string | null;
  actor_operator: string | null;
  actor_role: string;
  actor_access: string | null;
  /** While running or reverting: the claim of one instance; past it, another takes over. */
  lease_expires_at: string | null;
  operation_id: string | null;
  revert_operation_id: string | null;
  /** JSON of the fields a campaign replaced: [{store, locale, field, before, after}]. */
  revert_plan: string | null;
  /** JSON ScheduleSummary: what a push schedule will push. */
  summary: string | null;
  reason: string | null;
  /** JSON of what its run answered (the operation's outcome, a release control's result). */
  outcome: string | null;
  created_at: string;
  updated_at: string;
}

export interface OperationsTable {
  id: string;
  organization_id: string;
  project_id: string;
  kind: string;
  status: string;
  actor_member_id: string | null;
  /** The operator's label when no member acted (`cli:<os user>`). */
  actor_operator: string | null;
  stores: string;
  locales: string | null;
  outcome: string | null;
  started_at: string;
  finished_at: string | null;
  /** The actor's role, for a background run that acts on the actor's behalf. */
  actor_role: string | null;
  /** The actor's scope (JSON), likewise; null: everything. */
  actor_access: string | null;
  /** JSON of the request a background run carries out. */
  request: string | null;
  /** JSON {done, total, stores: {store: {done, total}}}. */
  progress: string | null;
  cancel_requested_at: string | null;
  /** Renewed by the instance that runs the operation; past it, the operation is resumed or failed. */
  lease_expires_at: string | null;
  /** 1 once a store write was attempted: a run that then dies is failed, unless it is a background push. */
  writes_started: number | null;
  queued_at: string | null;
  /** JSON of the changeset a background push started with (what a resumed push pushes). */
  prepared: string | null;
}

/** A dashboard session; the cookie's value is never stored, only its hash. */
export interface SessionsTable {
  id: string;
  token_hash: string;
  organization_id: string;
  member_id: string;
  /** How it was started: api-key, sign-in-link, passkey or invite. */
  method: string;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  /** The absolute end; the idle end is last_seen_at + 12 h. */
  expires_at: string;
  registration_challenge: string | null;
}

export interface SignInLinksTable {
  id: string;
  token_hash: string;
  organization_id: string;
  member_id: string;
  created_by_member_id: string | null;
  created_by_operator: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface PasskeysTable {
  id: string;
  /** base64url of the authenticator's credential id. */
  credential_id: string;
  organization_id: string;
  member_id: string;
  name: string;
  /** base64url of the COSE public key. */
  public_key: string;
  counter: number;
  /** JSON array of transports the authenticator reported. */
  transports: string;
  created_at: string;
  last_used_at: string | null;
}

export interface WebauthnChallengesTable {
  id: string;
  challenge: string;
  expires_at: string;
}

/** The first request that used an Idempotency-Key, and once it finished, its response. */
/** A locale a push wrote, recorded as it was done (a resumed push skips it). */
export interface OperationItemsTable {
  operation_id: string;
  store: string;
  locale: string;
  done_at: string;
}

export interface IdempotencyKeysTable {
  organization_id: string;
  /** Whose key it is: `key:<apiKeyId>`, or `member:<memberId>` for a dashboard session. */
  caller: string;
  key: string;
  /** SHA-256 of method, path and body: the same key with another request is refused. */
  fingerprint: string;
  /** running, or done (the response columns are set). */
  state: string;
  status_code: number | null;
  /** JSON object of the response headers that are replayed. */
  response_headers: string | null;
  /** JSON of the sealed response body (key ring): a response may carry a one-time secret. */
  response_body: string | null;
  created_at: string;
}

/** An organization's last event number; bumped in each event's transaction (commit order = event order). */
export interface EventSequencesTable {
  organization_id: string;
  seq: number;
}

/** The outbox: every event, written in the transaction of its cause. */
export interface EventsTable {
  id: string;
  organization_id: string;
  /** Per organization, in commit order: the SSE event id. */
  seq: number;
  type: string;
  data: string;
  created_at: string;
}

export interface WebhooksTable {
  id: string;
  organization_id: string;
  url: string;
  description: string;
  /** JSON array of event types; empty = every type. */
  events: string;
  /** JSON of the sealed signing secret. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  enabled: number;
  disabled_reason: string | null;
  /** When the current run of failed deliveries began; null while deliveries succeed. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  /** The `webhook-id` of every attempt of this delivery. */
  event_id: string;
  event_type: string;
  /** The exact body sent. */
  payload: string;
  /** pending, succeeded, failed. */
  status: string;
  attempt_count: number;
  /** JSON array of {at, status, durationMs, error}. */
  attempts: string;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The in-process job queue of the SQLite default. */
export interface JobsTable {
  id: string;
  name: string;
  data: string;
  run_at: string;
  attempts: number;
  locked_until: string | null;
  created_at: string;
}

export interface StoreDriftTable {
  project_id: string;
  store: string;
  locale: string;
  field: string;
  base_value: string | null;
  store_value: string | null;
  detected_at: string;
}

export interface BlobsTable {
  sha256: string;
  md5: string;
  bytes: number;
  content_type: string;
  /** 'image' or 'video'. */
  kind: string;
  width: number | null;
  height: number | null;
  has_alpha: number;
  duration_ms: number | null;
  has_thumbnail: number;
  /** 'stored', or 'deleting' while collection removes the file. */
  state: string;
  touched_at: string;
  created_at: string;
}

export interface OrganizationBlobsTable {
  organization_id: string;
  sha256: string;
  bytes: number;
  created_at: string;
}

export interface MediaItemsTable {
  id: string;
  organization_id: string;
  project_id: string;
  store: string;
  locale: string;
  slot_type: string;
  sha256: string;
  file_name: string;
  created_at: string;
}

export interface MediaSlotsTable {
  project_id: string;
  store: string;
  locale: string;
  slot_type: string;
  /** JSON array of item ids: the working copy, in order. */
  items: string;
  /** JSON array of SHA-256: what the store had at the last sync or push; null if never read. */
  base: string | null;
  /** JSON array of SHA-256: the store's files when a sync found both sides changed; else null. */
  conflict: string | null;
  updated_at: string;
}

/** What a store said of an app's versions or tracks at the last sync (JSON). */
export interface StoreReleasesTable {
  project_id: string;
  store: string;
  data: string;
  read_at: string;
}

/** Google Play release notes: per track release (its first version code) and language. */
export interface ReleaseNotesTable {
  project_id: string;
  track: string;
  version_code: string;
  locale: string;
  value: string | null;
  base: string | null;
  in_conflict: number;
  conflict_value: string | null;
  updated_at: string;
}

export interface ReleaseNotesHistoryTable {
  id: string;
  project_id: string;
  track: string;
  version_code: string;
  locale: string;
  old_value: string | null;
  new_value: string | null;
  source: string;
  actor_member_id: string | null;
  actor_operator: string | null;
  created_at: string;
}

/** A store's name for a file (App Store: the source MD5; Google Play: the SHA-256) and ours. */
export interface StoreMediaFilesTable {
  organization_id: string;
  store: string;
  checksum: string;
  sha256: string;
  created_at: string;
}

export interface MediaHistoryTable {
  id: string;
  project_id: string;
  store: string;
  locale: string;
  slot_type: string;
  old_items: string;
  new_items: string;
  source: string;
  actor_member_id: string | null;
  actor_operator: string | null;
  created_at: string;
}

/** What the last sync read of an in-app purchase or subscription (design.md §17). */
export interface StoreProductsTable {
  project_id: string;
  store: string;
  product_id: string;
  kind: string;
  reference_name: string | null;
  state: string | null;
  /** The store's own id of the product (App Store resource id). */
  store_ref: string | null;
  read_at: string;
  /** The counterpart's product id in the other store, when a member linked one (sync keeps it). */
  linked_product_id: string | null;
  /** JSON: what else the store says of a page or an event, shown read-only. */
  details: string | null;
  /** Why the store refuses changes to the item's texts now; null when it takes them. */
  locked: string | null;
}

/** A project's app detail per store (design.md §19); a secret's values sealed. */
export interface AppDetailsTable {
  project_id: string;
  store: string;
  field: string;
  value: string | null;
  base: string | null;
  in_conflict: number;
  conflict_value: string | null;
  updated_at: string;
}

export interface AppDetailsHistoryTable {
  id: string;
  project_id: string;
  store: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  source: string;
  actor_member_id: string | null;
  actor_operator: string | null;
  created_at: string;
}

/** A product's text in one locale, with working copy, base and conflict like a listing field. */
export interface ProductTextsTable {
  project_id: string;
  store: string;
  product_id: string;
  locale: string;
  field: string;
  value: string | null;
  base: string | null;
  in_conflict: number;
  conflict_value: string | null;
  updated_at: string;
}

export interface ProductTextsHistoryTable {
  id: string;
  project_id: string;
  store: string;
  product_id: string;
  locale: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  source: string;
  actor_member_id: string | null;
  actor_operator: string | null;
  created_at: string;
}

export interface Database {
  organizations: OrganizationsTable;
  members: MembersTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  invites: InvitesTable;
  audit_log: AuditLogTable;
  system_state: SystemStateTable;
  listings: ListingsTable;
  listing_fields: ListingFieldsTable;
  listing_history: ListingHistoryTable;
  approvals: ApprovalsTable;
  approval_requests: ApprovalRequestsTable;
  store_credentials: StoreCredentialsTable;
  translation_states: TranslationStatesTable;
  translation_glossaries: TranslationGlossariesTable;
  translation_usage: TranslationUsageTable;
  operations: OperationsTable;
  schedules: SchedulesTable;
  sessions: SessionsTable;
  sign_in_links: SignInLinksTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  idempotency_keys: IdempotencyKeysTable;
  operation_items: OperationItemsTable;
  event_sequences: EventSequencesTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  jobs: JobsTable;
  store_drift: StoreDriftTable;
  blobs: BlobsTable;
  organization_blobs: OrganizationBlobsTable;
  media_items: MediaItemsTable;
  media_slots: MediaSlotsTable;
  media_history: MediaHistoryTable;
  store_media_files: StoreMediaFilesTable;
  store_releases: StoreReleasesTable;
  release_notes: ReleaseNotesTable;
  release_notes_history: ReleaseNotesHistoryTable;
  store_products: StoreProductsTable;
  app_details: AppDetailsTable;
  app_details_history: AppDetailsHistoryTable;
  product_texts: ProductTextsTable;
  product_texts_history: ProductTextsHistoryTable;
}
