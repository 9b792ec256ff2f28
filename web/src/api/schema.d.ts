// Generated from the OpenAPI document by `npm run web:types`; do not edit.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The process is up
         * @description Answers 200 while the process runs, whatever its dependencies: for a liveness probe. Never rate-limited.
         */
        get: operations["health.live"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The database answers
         * @description 503 while the database cannot be reached.
         */
        get: operations["health.ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List projects
         * @description Newest first (createdAt descending, then id). `total` counts all projects of the organization, or with `search` those whose name contains it (case-insensitive). A member narrowed to some projects sees, and counts, only those; the others answer 404 everywhere.
         */
        get: operations["projects.list"];
        put?: never;
        /**
         * Create a project
         * @description Role member or admin. 403 USAGE_LIMIT_EXCEEDED when the plan allows no more projects.
         */
        post: operations["projects.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one project with its metadata
         * @description The project with its store identifiers and metadata (its locales, last sync). 404 when it does not exist or is outside the caller’s scope.
         */
        get: operations["projects.get"];
        put?: never;
        post?: never;
        /**
         * Delete a project and all its metadata
         * @description Admin only. Cannot be undone.
         */
        delete: operations["projects.delete"];
        options?: never;
        head?: never;
        /**
         * Update a project
         * @description Partial update. `null` clears a store identifier.
         */
        patch: operations["projects.update"];
        trace?: never;
    };
    "/api/v1/projects/{projectId}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pull the latest listings from the store(s)
         * @description Runs synchronously, or in the background with `Prefer: respond-async` (202, `Location` of the operation, `data.operation`). Three-way merge: fields not edited here take the store value; fields changed on both sides are listed in `conflicts` and keep the local value. 200 whenever the request was valid and ran; each store reports `synced` and, when false, an `error`. In-app purchases and subscriptions are read after the listings (`products` counts them; a store refusing them is a failure with field `products`); `include` narrows the sync to `listings` or `products`. 400 when the named store has no identifier on the project.
         */
        post: operations["projects.sync"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/push": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Push listing changes to the store(s)
         * @description Runs synchronously, or in the background with `Prefer: respond-async` (202, `Location` of the operation, `data.operation`; a dry run always answers at once). Pushes only changed fields, never deletes a store locale. Each store reports `pushed` and, when false, an `error`; `written` says what each store took per locale and kind. With `dryRun: true`, answers the changes it would write instead (with `counts` per store and kind). A member narrowed to some locales gets 403 when the changes include others (push those with `locales`). Product texts are pushed after the listings, each product on its own (a refusal fails that product, field `products.<productId>.<field>`); one in conflict or over a limit in force is left out (`CONFLICT`, `INVALID_TEXT`) before any store call; `include` narrows the push to `listings` or `products`.
         */
        post: operations["projects.push"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/operations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Recorded syncs and pushes
         * @description Who ran which sync or push when, on which stores and locales, and its outcome. Newest first.
         */
        get: operations["projects.operations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/operations/{operationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A sync or push: status, progress and result
         * @description `status` is queued, running, succeeded, partial, failed or cancelled; `progress` counts locales done; `outcome` is, once finished, the result the synchronous call answers.
         */
        get: operations["operations.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/operations/{operationId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a queued or running sync or push
         * @description A queued operation ends at once; a running one stops before its next store write — what was written stays written and is reported in its outcome. 409 once it has finished.
         */
        post: operations["operations.cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/listings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * All listings of a project
         * @description Every store and locale, each field with `value` (working copy), `base` (store at last sync/push) and state.
         */
        get: operations["listings.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/listings/{store}/{locale}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One listing
         * @description Every field of one store’s listing in one locale: working copy, base (the store’s value at the last sync or push), state and, in a conflict, the store’s value; with the warnings of the field rules.
         */
        get: operations["listings.get"];
        put?: never;
        post?: never;
        /**
         * Delete a local locale
         * @description Removes the locale here. If the store has it, it is removed from the store only by a push with `prune: true` (`pendingStoreRemoval`).
         */
        delete: operations["listings.delete"];
        options?: never;
        head?: never;
        /**
         * Edit a listing (creates the locale if new)
         * @description Partial update; `null` clears a field. Limits of design.md §9 are errors (one `details` entry per field); advice (keyword hygiene, the other platform named, placeholder text) comes back in `data.warnings`.
         */
        patch: operations["listings.update"];
        trace?: never;
    };
    "/api/v1/projects/{projectId}/listings/{store}/{locale}/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check texts against the store’s rules without saving them
         * @description The same checks as PATCH of the listing — every problem at once, 400 with one `details` entry per field — but nothing is written; answers the advice the listing would get with these texts. For editors and agents that draft before they save.
         */
        post: operations["listings.validate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/diff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a push would change
         * @description Per store, per locale, per field: old (base) → new (working copy). Empty and `inSync` when nothing is pending.
         */
        get: operations["listings.diff"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/listings/{store}/{locale}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Change history of a listing
         * @description Every change: who, when, field, old, new, and its source (edit, revert, copy, import, sync, push). Newest first.
         */
        get: operations["listings.history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/listings/{store}/{locale}/revert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revert a field to a history entry
         * @description Sets the entry's field to its value before the entry (`to: "before"`, undo) or after it; recorded as a new change.
         */
        post: operations["listings.revert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/listings/copy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Copy texts between stores or locales
         * @description Maps fields between the stores (App Store name ↔ Play title, subtitle ↔ shortDescription, description ↔ fullDescription) and locale codes (e.g. zh-Hans → zh-CN). Validated like an edit.
         */
        post: operations["listings.copy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve the pending changes
         * @description Admin only. Binds the approval to the current diff; any later edit voids it. With `hash` (from GET /diff), 409 CONFLICT when the pending changes are no longer the ones reviewed.
         */
        post: operations["listings.approve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/approval-requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The open approval requests
         * @description Requests still waiting for an admin, oldest first: each is about the changes now pending.
         */
        get: operations["approvalRequests.list"];
        put?: never;
        /**
         * Ask an admin to approve the pending changes
         * @description Members and admins. The request is about the changes as they stand (their diff hash); an approval closes it, and so does any new change. Emits `approval.requested`.
         */
        post: operations["approvalRequests.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export listings in the fastlane layout
         * @description A tar.gz (default) or zip of `fastlane/metadata/<locale>/*.txt` (deliver) and `fastlane/metadata/android/<language>/*.txt` (supply), with the working copies.
         */
        get: operations["listings.export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/media/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export screenshots and previews in the fastlane layout
         * @description A tar.gz, streamed, of `fastlane/screenshots/<locale>/<displayType>_NN.<ext>` (appleTV/ and iMessage/ folders as deliver reads them), `fastlane/app_previews/<locale>/<previewType>_NN.<ext>` and `fastlane/metadata/android/<language>/images/<type>/NN.<ext>` or `images/<icon|featureGraphic|tvBanner>.<ext>` (supply), the working copies in slot order.
         */
        get: operations["media.export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/media/slot-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every slot type of both stores and its rules
         * @description Formats, accepted sizes or ranges, alpha, count and byte limits (stores-media.md).
         */
        get: operations["media.slotTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Screenshots and previews of a project
         * @description Slots with items (in order) or a store base, by store, locale and slot type: those of the default product page, or with `?productPage=` those of that custom product page.
         */
        get: operations["media.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/media/{store}/{locale}/{slotType}/order": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Reorder a slot
         * @description `items`: every item id of the slot, each once, in the new order.
         */
        put: operations["media.reorder"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/media/{store}/{locale}/{slotType}/{itemId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove an item from a slot
         * @description The file stays in the history (a revert can bring it back) and in storage while anything uses it.
         */
        delete: operations["media.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/media/copy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Copy media between locales or stores
         * @description The same files in new items, no bytes copied. Across stores, App Store iPhone/iPad/TV screenshots go to phoneScreenshots/tenInchScreenshots/tvScreenshots and Play screenshots to the display type of their size; `slotTypes` entries `source:target` override. Every file is checked against the target slot first; all or nothing. The target slots are replaced. `productPage` on either side names a custom product page (App Store): `from` without it and `to` with it copies the default page's media into that page.
         */
        post: operations["media.copy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/media/{store}/{locale}/{slotType}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Change history of a slot
         * @description Every change of the slot: the files before and after (SHA-256, in order), who, when, why. Newest first.
         */
        get: operations["media.history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/media/{store}/{locale}/{slotType}/revert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restore a slot to a history entry
         * @description The files and order before the entry (`to: "before"`, undo) or after it; recorded as a new change.
         */
        post: operations["media.revert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/media/{sha256}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The bytes of a media file
         * @description For files a project of your organization uses (404 otherwise). `?thumb=1`: a WebP thumbnail, at most 320 pixels a side (images only; 404 for a video). Supports one `Range` (206; 416 outside the file) and `If-None-Match` (304); the content never changes, so it may be cached privately for a year.
         */
        get: operations["media.download"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/releases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * App Store versions and Google Play tracks, as the last sync read them
         * @description What the last sync read: App Store versions (state, editable, first version) and Google Play tracks with their releases (status, rollout fraction, notes). Sync to refresh it.
         */
        get: operations["releases.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/releases/appstore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Creates the next App Store version
         * @description Refused by App Store Connect while an unreleased version exists or for a version string used before: 409 with the store's reason.
         */
        post: operations["releases.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/release-notes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Release notes per locale, with base and working copy
         * @description App Store What’s New of a version (default: the one being prepared) or Google Play notes per release of a track, per locale with their state against the store.
         */
        get: operations["releaseNotes.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/release-notes/appstore/{versionString}/{locale}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * What's New of an App Store version in one locale
         * @description Only on the version being prepared, never on an app's first version (409 saying why, before any store call); at most 4,000 characters.
         */
        patch: operations["releaseNotes.updateAppStore"];
        trace?: never;
    };
    "/api/v1/projects/{projectId}/release-notes/playstore/{track}/{versionCode}/{locale}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A Google Play note's changes, newest first
         * @description Every change of one Google Play release note (track, version code, language), with who made it and where it came from, newest first; paged.
         */
        get: operations["releaseNotes.history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/release-notes/playstore/revert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sets a Google Play note back to its text before (or after) a history entry
         * @description Writes the note as it was before (or, with `after`, just after) a history entry, as a new change with its own history entry. Pending until pushed.
         */
        post: operations["releaseNotes.revert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/release-notes/copy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Copies release notes into a Google Play release (from What's New or another release)
         * @description Locales are mapped to Play languages; every note is checked first (500 characters, a listing in that language): one too long is refused, never cut; all or nothing.
         */
        post: operations["releaseNotes.copy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/release-notes/playstore/{track}/{versionCode}/{locale}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Google Play notes of the track's release that contains a version code, in one language
         * @description At most 500 characters, never empty (null removes), only in languages that have a listing; pushed with the texts, written into the track as read.
         */
        patch: operations["releaseNotes.updatePlay"];
        trace?: never;
    };
    "/api/v1/projects/{projectId}/products": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Both stores' in-app purchases and subscriptions with their texts per locale
         * @description As the last sync read them; the limits each text is checked against come with them.
         */
        get: operations["products.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/products/{store}/{productId}/{locale}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One product's texts in one locale: working copy, base, state and limits
         * @description One in-app purchase or subscription in one locale: each text with working copy, base, state, its limit and whether it is over it.
         */
        get: operations["products.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Changes one product's texts in one locale
         * @description Every text is checked against the limit table first: all problems in one 400, each with its limit and length. A locale the store lacks needs its required text (name or title).
         */
        patch: operations["products.update"];
        trace?: never;
    };
    "/api/v1/projects/{projectId}/products/{store}/{productId}/{locale}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A product's text changes in one locale, newest first
         * @description Every change of a product’s texts in one locale, with who made it and where it came from, newest first; paged.
         */
        get: operations["products.history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/products/revert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sets a product text back to its value before (or after) a history entry
         * @description Writes a product text as it was before (or, with `after`, just after) a history entry, as a new change. Pending until pushed.
         */
        post: operations["products.revert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/products/copy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Copies a product's texts into its counterpart in the other store
         * @description The counterpart is the product with the same id, or to.productId. Locales are mapped (zh-Hans ↔ zh-CN) and fields too (name ↔ title, description ↔ description); every text is checked against the target limits first — one too long is refused, never cut; all or nothing.
         */
        post: operations["products.copy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/products/{store}/{productId}/link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Links a product to its counterpart in the other store (their ids differ)
         * @description Copy then finds the counterpart without being told. One to one: an earlier link of either is undone; null unlinks. Sync keeps links.
         */
        put: operations["products.link"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/product-pages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Custom product pages with their promotional text per locale
         * @description As the last sync read them, with the newest version's state, whether it can be edited (and why not), and a preview of the first screenshots. Screenshots and previews are media slots of the page: `/projects/:projectId/media…?productPage=:pageId`. Google Play has no API for custom store listings.
         */
        get: operations["productPages.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/product-pages/{pageId}/{locale}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page's texts in one locale: working copy, base, state and limit
         * @description A custom product page’s promotional text in one locale, with working copy, base, state and the 170-character limit; read-only while the page is in review.
         */
        get: operations["productPages.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Changes a page's promotional text in one locale
         * @description Written to the page version being prepared when pushed (a new one is opened beside an approved version); a locale the page lacks is created. In a state App Store Connect refuses changes in (a page version in review, an event published) the edit is 409 CONFLICT naming the state.
         */
        patch: operations["productPages.update"];
        trace?: never;
    };
    "/api/v1/projects/{projectId}/product-pages/{pageId}/copy-default": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Copies the default product page's promotional text and media into a page
         * @description Per locale: the App Store listing's promotional text, its screenshots and previews (the same files, no bytes copied). In a state App Store Connect refuses changes in (a page version in review, an event published) the edit is 409 CONFLICT naming the state.
         */
        post: operations["productPages.copyDefault"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/app-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * In-app events with their texts per locale
         * @description As the last sync read them: badge, purpose, priority and schedule read-only, with whether their texts can be edited now.
         */
        get: operations["appEvents.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/app-events/{eventId}/{locale}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An event's texts in one locale: working copy, base, state and limits
         * @description An in-app event’s name, short and long description in one locale, with working copy, base, state and limits; read-only while the store takes no changes.
         */
        get: operations["appEvents.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Changes an event's name, short and long description in one locale
         * @description Checked against their limits (30, 50, 120 characters) first. In a state App Store Connect refuses changes in (a page version in review, an event published) the edit is 409 CONFLICT naming the state.
         */
        patch: operations["appEvents.update"];
        trace?: never;
    };
    "/api/v1/projects/{projectId}/details/{store}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A store's app details and App Review information
         * @description As the last sync read them and as edited here, each with its state against the store. The demo account password shows only {"set": true|false}.
         */
        get: operations["details.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Changes a store's app details
         * @description App Store: copyright, primaryCategory, secondaryCategory (category ids; an unknown one is refused with the list), review{contactFirstName, contactLastName, contactPhone (+ and country code), contactEmail, demoAccountName, demoAccountPassword (admins only), demoAccountRequired, notes}. Google Play: contactEmail, contactPhone, contactWebsite, defaultLanguage. All checked first; pending until pushed.
         */
        patch: operations["details.update"];
        trace?: never;
    };
    "/api/v1/projects/{projectId}/details/{store}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A store's app detail changes, newest first
         * @description Every change of a store’s app details, newest first; the demo account password appears only as set or cleared. Paged.
         */
        get: operations["details.history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/release-controls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Release type, phased release and staged rollouts, as the stores have them now
         * @description Reads the stores: the App Store's newest version (release type, phased release) and Google Play's releases that are rolling out, halted or complete.
         */
        get: operations["releaseControls.get"];
        put?: never;
        /**
         * Applies a release control now
         * @description App Store: setReleaseType {releaseType, earliestReleaseDate with SCHEDULED}, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease. Google Play: setRolloutFraction {track, fraction}, haltRollout, resumeRollout, completeRollout {track}. The store refusing (its state does not allow it) is 409 with its words. POST .../schedules {release} does the same at a time.
         */
        post: operations["releaseControls.apply"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The project's schedules by time, upcoming and past
         * @description Filters: from, to (on `at`), status (comma-separated).
         */
        get: operations["schedules.list"];
        put?: never;
        /**
         * Schedules a push of an approved diff, or a release control, at a time
         * @description Give `hash` (the diff to push, as GET .../diff answers it) or `release` (a release control). `at` with an offset, or a wall-clock time with `timeZone` (the offset in force that day is used). With `revertAt` (a campaign) the listing texts it pushed are put back then. At its time it pushes exactly that changeset, once; if the changes or the store moved meanwhile, or an approval is missing, it ends `held` with the reason. Needs push rights (or release-control rights); times are stored in UTC.
         */
        post: operations["schedules.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/schedules/{scheduleId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One schedule, with its state and, once run, its operation
         * @description Its state (scheduled, running, live, reverting, completed, held, failed, cancelled), times in UTC and as entered, what it pushes, its operations and, when held or failed, why.
         */
        get: operations["schedules.get"];
        put?: never;
        post?: never;
        /**
         * Cancels a schedule that has not run, or a live campaign's revert
         * @description 409 once it is running (cancel its operation) or has ended.
         */
        delete: operations["schedules.cancel"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/translations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The translation matrix: per target locale, store and field, its state
         * @description Target locales are the listings other than the source locale (design.md §14). A translated text remembers the source it was made from: when the source changes it is `outdated`. Texts written before tracking began, or synced from a store, count as `current` until their source changes.
         */
        get: operations["translations.status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/translations.zip": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every target locale's XLIFF in one zip (`<locale>.xlf`)
         * @description One XLIFF 1.2 file per target locale, zipped: source beside target, with notes for limits and glossary terms, to hand to translators.
         */
        get: operations["translations.exportAll"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/translations/{locale}.xlf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * XLIFF of one target locale, for translators
         * @description XLIFF 2.0 (or 1.2 with `?version=1.2`): one file per store, one unit per field (id = field name) with the source, the current target (or the draft waiting for review), the store's limit as a size restriction (2.0: slr:sizeRestriction in code points; 1.2: maxwidth), notes with context, and the state: initial (missing or outdated), translated (a machine draft), reviewed (current).
         */
        get: operations["translations.export"];
        /**
         * A translator's XLIFF for one locale, all or nothing
         * @description XLIFF 2.x or 1.2 as exported (units may be regrouped, notes and states changed). A unit whose target differs from the exported one is written; an unchanged one whose state was raised (e.g. initial → translated) confirms it: an outdated translation still right, or a draft approved. Every unit is validated like an edit; any problem (named `<store>/<field>`) and nothing is written. UTF-8 or UTF-16; character references decoded. A document that is not well-formed XML is refused whole, naming its line. Up to 5 MiB.
         */
        put: operations["translations.import"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/translations/{locale}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One target locale: source beside target, what each was translated from, drafts
         * @description Each text of the source locale beside the target locale’s, with what the target was translated from, whether the source changed since, and machine drafts waiting for review.
         */
        get: operations["translations.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/translations/machine": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Machine-translate into drafts (DeepL)
         * @description Drafts are never pushed: a member accepts them. By default the missing and outdated fields are translated. Keywords are translated one by one and kept comma-separated within the limit. A draft over its limit is marked with its length. Provider errors (quota, key, rate limit with Retry-After) are reported per field. Uses the organization's DeepL key, else the instance's DEEPL_API_KEY. Runs synchronously: `Prefer: respond-async` is accepted and not applied (no Preference-Applied).
         */
        post: operations["translations.machine"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/translations/{locale}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept machine drafts: they become the texts, current
         * @description All drafts of the locale, or those of `store` and `fields`. A draft over its limit is refused when named, skipped (and listed) otherwise. The texts are written like edits (history source `translation`).
         */
        post: operations["translations.accept"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/glossaries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's glossaries and this month's machine translation usage
         * @description Each language pair’s glossary (terms kept as given by DeepL) and how many characters machine translation used this month against the plan’s allowance.
         */
        get: operations["glossaries.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/glossaries/{source}/{target}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the glossary of a language pair (admin)
         * @description Terms machine translation must render as given: `terms` stay as they are (the app name, trademarks), `entries` map a source term to its target. Replaces the pair’s glossary.
         */
        put: operations["glossaries.set"];
        post?: never;
        /**
         * Delete the glossary of a language pair (admin)
         * @description Removes the glossary of one language pair, here and its copy at DeepL; later translations of that pair use none. Admins.
         */
        delete: operations["glossaries.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the caller's organization
         * @description The caller’s organization: its name, plan and settings (whether pushes need approval, the drift check interval, terms never translated).
         */
        get: operations["organization.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Rename the organization or change settings
         * @description Admin only. `settings` keys are merged; domains are lower-cased and de-duplicated.
         */
        patch: operations["organization.update"];
        trace?: never;
    };
    "/api/v1/organization/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What the organization uses of its plan
         * @description Projects, seats (members plus pending invites) and media storage (bytes of distinct files) used, with the plan's limits (null: unlimited). Requests this minute are in every response's X-RateLimit-* headers.
         */
        get: operations["organization.usage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/audit-log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the audit log
         * @description Admin only. Every state change of the organization, newest first: who (with their name then), what (the operation id), in which project. Filters combine.
         */
        get: operations["auditLog.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/audit-log.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the audit log as CSV
         * @description Admin only. The entries the same filters select, newest first, as CSV (RFC 4180, header row), streamed as they are read.
         */
        get: operations["auditLog.export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List members
         * @description All members, oldest first.
         */
        get: operations["members.list"];
        put?: never;
        /**
         * Invite a member (share link)
         * @description Admin only. No e-mail is sent: share `inviteUrl` with the invitee. Expires after 7 days, single use. Re-inviting a pending address replaces its invite. 403 USAGE_LIMIT_EXCEEDED when all seats are taken. `access` narrows the member-to-be to projects and locales (a viewer to projects only, an admin never).
         */
        post: operations["invites.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/members/{memberId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a member
         * @description Admin only. Revokes all of the member's API keys at once. Removing the last admin is 400.
         */
        delete: operations["members.remove"];
        options?: never;
        head?: never;
        /**
         * Change a member's role or scope
         * @description Admin only. Demoting the last admin is 400. `access` narrows a member to projects and locales (a viewer to projects only; an admin never) and takes effect on their next request.
         */
        patch: operations["members.updateRole"];
        trace?: never;
    };
    "/api/v1/organization/invites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List pending invites
         * @description Admin only. Invites not yet accepted or revoked; `status` is `expired` past `expiresAt`.
         */
        get: operations["invites.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/invites/{inviteId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a pending invite
         * @description The invite link stops working at once; a member who already joined stays. Admins.
         */
        delete: operations["invites.revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List active API keys
         * @description The caller's own keys; admins may pass `memberId` for another member's.
         */
        get: operations["apiKeys.list"];
        put?: never;
        /**
         * Create an API key
         * @description The secret is in `apiKey`, shown once (the response is `Cache-Control: no-store`). Admins may pass `memberId` to create a key for another member.
         */
        post: operations["apiKeys.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api-keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Effective at once. Admins may revoke other members' keys.
         */
        delete: operations["apiKeys.revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Which store credentials are set
         * @description Admin only. Metadata only (issuer and key id, service account e-mail); secrets are never returned.
         */
        get: operations["credentials.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/credentials/appstore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set App Store Connect API credentials
         * @description Admin only. `privateKey` is the .p8 file (PEM, P-256). Encrypted at rest with AES-256-GCM.
         */
        put: operations["credentials.setAppStore"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/credentials/playstore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a Google Play service account key
         * @description Admin only. `serviceAccount` is the JSON key (object or string). Its token_uri is ignored: tokens come from GOOGLE_TOKEN_URL. Encrypted at rest with AES-256-GCM.
         */
        put: operations["credentials.setPlayStore"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/credentials/deepl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the DeepL API key for machine translation
         * @description Admin only (design.md §14). Encrypted at rest with AES-256-GCM like the store credentials; never returned. Without one, machine translation uses the instance key DEEPL_API_KEY when the operator set it.
         */
        put: operations["credentials.setDeepl"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/credentials/{store}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a store's credentials or the DeepL key
         * @description Removes the organization’s App Store or Google Play credentials, or its DeepL key: syncs, pushes and translations of that provider then say what is missing. Admins.
         */
        delete: operations["credentials.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/credentials/{store}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check the credentials against the store (or DeepL)
         * @description Admin only. `verified: false` with the store's (or DeepL's) `error` when it refuses them.
         */
        post: operations["credentials.verify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/locales": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The locale codes of each store
         * @description Each store's codes with their English names (Apple zh-Hans, Google zh-CN: codes stay store-native), the codes both stores accept as written, and with `projectId` the locales that project has in each store.
         */
        get: operations["locales.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Webhook endpoints
         * @description The organization’s endpoints with their events and state (enabled, or disabled after failing too long, with the reason and since when); never their secrets. Admins.
         */
        get: operations["webhooks.list"];
        put?: never;
        /**
         * Add a webhook endpoint
         * @description Answers the endpoint and its signing secret (`whsec_...`), shown this once. Deliveries follow the Standard Webhooks specification: headers `webhook-id`, `webhook-timestamp`, `webhook-signature`.
         */
        post: operations["webhooks.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook endpoint
         * @description One endpoint: its URL, events and state (enabled, or why and since when it is disabled); never its secret. Admins.
         */
        get: operations["webhooks.get"];
        put?: never;
        post?: never;
        /**
         * Remove a webhook endpoint and its delivery log
         * @description Removes the endpoint and its delivery log; deliveries not yet made are dropped. Admins.
         */
        delete: operations["webhooks.delete"];
        options?: never;
        head?: never;
        /**
         * Change or re-enable a webhook endpoint
         * @description Changes the URL, the events or the description; `enabled: true` re-enables an endpoint that was disabled after failing for too long. Admins.
         */
        patch: operations["webhooks.update"];
        trace?: never;
    };
    "/api/v1/organization/webhooks/{webhookId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the signing secret
         * @description Answers the new secret once. For 24 h deliveries carry signatures by the old and the new secret.
         */
        post: operations["webhooks.rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/webhooks/{webhookId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test delivery (`webhook.test`)
         * @description Queues a `webhook.test` delivery to the endpoint (also when it is disabled), signed like any delivery, and answers that delivery; read its outcome in the delivery log. Admins.
         */
        post: operations["webhooks.test"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The delivery log of an endpoint
         * @description Newest first; each delivery lists its attempts with response status, timing and error.
         */
        get: operations["webhooks.deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organization/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again (same webhook-id)
         * @description Sends a delivery again now with the same webhook-id (receivers deduplicate by it); its retry schedule starts over. 409 while it is being sent. Admins.
         */
        post: operations["webhooks.redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The live stream of the organization’s events (Server-Sent Events)
         * @description Each event has `id` (a number, increasing), `event` (its type) and `data` (`{id, type, timestamp, data}` as webhooks receive it). Reconnect with `Last-Event-ID` (or `?lastEventId=`) to receive what was missed; without it the stream starts with the next event. The stream ends when its member is removed (after that event) and, within 15 s, when its key is revoked or its session ends.
         */
        get: operations["events.stream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import listings from a fastlane tree
         * @description Body: a tar.gz or zip (Content-Type application/gzip or application/zip, up to 10 MiB): a fastlane folder or a whole repository. The tree read is `fastlane/metadata` (deliver: `<locale>/*.txt`; supply: `android/<language>/*.txt`) or the folder named by `path`; several trees without `path` are 400 listing them. deliver values are trimmed; supply files lose one final line break (single-line fields are trimmed); empty files never clear a field; deliver's `default/` fills the locale folders lacking a file. Validated like any edit, all or nothing; everything else in the tree is reported in `skipped` with the reason. The archive may expand to 20 MiB (5 MiB per file, 5,000 files, 16 folders deep); a larger one is 413, and links, paths outside the archive, repeated names or overlapping zip records are 400.
         */
        post: operations["listings.import"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/media/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import screenshots and previews from a fastlane tree
         * @description Body: a tar.gz (Content-Type application/gzip), read as it streams, each file spooled to disk. The layout is the export's, or any deliver/supply tree: App Store screenshots go to the display type their pixel size says (deliver's rule, `_framed` files preferred), previews by the preview type in their name. Every file is checked against its slot; all or nothing (400 naming each path and rule). The slots in the tree are replaced; others stay. Up to 2 GiB compressed, 4 GiB expanded, 500 MiB per file (413).
         */
        post: operations["media.import"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/projects/{projectId}/media/{store}/{locale}/{slotType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a screenshot or preview into a slot
         * @description Body: the file itself (Content-Type image/png, image/jpeg, video/mp4, video/quicktime, or application/octet-stream; name it with `?fileName=`) or multipart/form-data with one file part. Format, dimensions and alpha are read from the bytes; every rule of the slot is checked before anything is stored (400, one `details` entry per broken rule, `file.<rule>`); over the slot's byte limit is 413; over the plan's storage 403 USAGE_LIMIT_EXCEEDED (nothing stored); a file already in the slot is 409 (a slot holds each file once). The item goes to the end of the slot; in a single-image slot (icon, featureGraphic, tvBanner) it replaces the image.
         */
        post: operations["media.upload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/invites/{inviteId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Show an invite
         * @description 404 for an unknown or revoked invite; 409 for one already used (when and, to an admin of its organization sending its API key, by whom); 400 for an expired one.
         */
        get: operations["dashboard.invites.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/invites/{inviteId}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invite
         * @description Creates the member and its first API key, shown once in `apiKey`. Sent by the dashboard (with `X-Appmeta-CSRF: 1` and its Origin) it also signs the member in (sets the `appmeta_session` cookie). Single use: 409 once it was accepted.
         */
        post: operations["dashboard.invites.accept"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who am I
         * @description Who the session or API key signs in as — the member, their role and organization — as the dashboard shows it in its header.
         */
        get: operations["dashboard.session.get"];
        put?: never;
        /**
         * Sign in with an API key
         * @description Starts a session for the key's member and sets the `appmeta_session` cookie; a session cookie sent along is ended (rotation).
         */
        post: operations["dashboard.session.create"];
        /**
         * Sign out
         * @description Ends the session of this request and clears its cookie.
         */
        delete: operations["dashboard.session.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/sign-in-links/{token}/redeem": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with a one-time link
         * @description 404 for an unknown link, 409 for a used one, 400 for an expired one (links last 15 minutes).
         */
        post: operations["dashboard.signInLinks.redeem"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/passkeys/authentication/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Begin a passkey sign-in
         * @description Options for `navigator.credentials.get`, and the id of their challenge (valid 5 minutes, single use).
         */
        post: operations["dashboard.passkeys.authenticationOptions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/passkeys/authentication/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with a passkey
         * @description Verifies the passkey’s answer to the challenge from the options call and, when it matches a registered passkey, starts a dashboard session (the cookie).
         */
        post: operations["dashboard.passkeys.authenticate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Signed-in devices
         * @description The caller's own sessions that have not ended.
         */
        get: operations["dashboard.sessions.list"];
        put?: never;
        post?: never;
        /**
         * Sign out everywhere
         * @description Ends every session of the caller, this one included.
         */
        delete: operations["dashboard.sessions.deleteAll"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Sign out one device
         * @description Ends one of the caller’s own sessions (another device); the next request with its cookie is 401.
         */
        delete: operations["dashboard.sessions.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/sign-in-links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a one-time sign-in link for a member
         * @description Admin only. No e-mail is sent: share `url`. Valid 15 minutes, single use.
         */
        post: operations["dashboard.signInLinks.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's passkeys
         * @description The passkeys the caller registered: name, when added and last used; never key material.
         */
        get: operations["dashboard.passkeys.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/passkeys/registration/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Begin adding a passkey
         * @description Options for `navigator.credentials.create`; needs a session (the challenge is kept on it).
         */
        post: operations["dashboard.passkeys.registrationOptions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/passkeys/registration/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a passkey
         * @description Verifies the authenticator’s answer to the registration options and stores the passkey for signing in without an API key.
         */
        post: operations["dashboard.passkeys.register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/passkeys/{passkeyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a passkey
         * @description Removes one of the caller’s passkeys; it can no longer sign in.
         */
        delete: operations["dashboard.passkeys.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description The error envelope */
        ErrorResponse: {
            /** @enum {boolean} */
            success: false;
            error: {
                /** @description One of the codes of the error table (design.md §5) */
                code: string;
                message: string;
                /** @description Present on validation failures: one entry per offending field, all of them */
                details?: {
                    field: string;
                    message: string;
                    /** @description For a length rule: the limit broken */
                    limit?: number;
                    /** @description For a length rule: the value's length (Unicode code points) */
                    length?: number;
                }[];
            };
        };
    };
    responses: {
        /** @description INVALID_REQUEST: the request is malformed or a field is invalid; `details` names every field */
        Error400: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description UNAUTHORIZED: no valid API key or session */
        Error401: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description FORBIDDEN (the role or scope does not allow it), APPROVAL_REQUIRED or USAGE_LIMIT_EXCEEDED */
        Error403: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description NOT_FOUND: the resource does not exist or is outside the caller’s scope */
        Error404: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description CONFLICT: the state does not allow it now (a running operation, a moved diff, a store refusal) */
        Error409: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description INVALID_REQUEST: the body is larger than this route accepts */
        Error413: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description INVALID_REQUEST: the Content-Type is not one this route accepts */
        Error415: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with another request */
        Error422: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description RATE_LIMIT_EXCEEDED: the budget of this minute is spent; retry after `Retry-After` seconds */
        Error429: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description INTERNAL_ERROR: something failed on our side; the log has it under the request id */
        Error500: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description SERVICE_UNAVAILABLE: a dependency is unreachable for a moment; retry after `Retry-After` seconds */
        Error503: {
            headers: {
                "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description Requests per minute of the caller's budget (the plan's, or the client IP's) */
        "X-RateLimit-Limit": number;
        /** @description Requests left in the current window */
        "X-RateLimit-Remaining": number;
        /** @description When the window resets (Unix time, seconds) */
        "X-RateLimit-Reset": number;
        /** @description Seconds to wait before trying again */
        "Retry-After": number;
        /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key */
        "Idempotent-Replayed": "true";
        /** @description Where the queued operation is read */
        Location: string;
        /** @description How the answer may be cached */
        "Cache-Control": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "health.live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "status": "ok"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {string} */
                            status: "ok";
                        };
                    };
                };
            };
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    "health.ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "status": "ready"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {string} */
                            status: "ready";
                        };
                    };
                };
            };
            429: components["responses"]["Error429"];
            503: components["responses"]["Error503"];
        };
    };
    "projects.list": {
        parameters: {
            query?: {
                /** @description 1..100 */
                limit?: number;
                offset?: number;
                /** @description Part of the name */
                search?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "projects": [
                     *           {
                     *             "id": "proj_mmry3n22x0evtvhwxpngvpnc8w",
                     *             "name": "Project 61",
                     *             "appStoreAppId": "1234567890",
                     *             "playStorePackageName": "com.example.weather",
                     *             "createdAt": "2026-11-28T14:55:44.042Z",
                     *             "updatedAt": "2026-11-28T14:55:44.042Z"
                     *           },
                     *           {
                     *             "id": "proj_8myv7055a9tjky84kwv0e4mkfm",
                     *             "name": "Project 59",
                     *             "appStoreAppId": "1234567890",
                     *             "playStorePackageName": "com.example.weather",
                     *             "createdAt": "2026-11-28T14:55:44.031Z",
                     *             "updatedAt": "2026-11-28T14:55:44.031Z"
                     *           }
                     *         ],
                     *         "total": 56,
                     *         "limit": 20,
                     *         "offset": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            projects: {
                                /** @example proj_0123456789abcdefghjkmnpqrs */
                                id: string;
                                name: string;
                                appStoreAppId: string | null;
                                playStorePackageName: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            }[];
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "projects.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "New"
                 *     }
                 */
                "application/json": {
                    /** @description 1..200 characters on one line; surrounding whitespace is trimmed */
                    name: string;
                    /**
                     * @description Numeric App Store app id
                     * @example 1234567890
                     */
                    appStoreAppId?: string;
                    /**
                     * @description Google Play package name
                     * @example com.example.app
                     */
                    playStorePackageName?: string;
                    sourceLocale?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "projectId": "proj_q046s33xw082fkgd78pd7dhe8c",
                     *         "project": {
                     *           "id": "proj_q046s33xw082fkgd78pd7dhe8c",
                     *           "name": "New",
                     *           "appStoreAppId": null,
                     *           "playStorePackageName": null,
                     *           "createdAt": "2026-11-28T14:55:47.784Z",
                     *           "updatedAt": "2026-11-28T14:55:47.784Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            projectId: string;
                            project: {
                                /** @example proj_0123456789abcdefghjkmnpqrs */
                                id: string;
                                name: string;
                                appStoreAppId: string | null;
                                playStorePackageName: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "projects.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "project": {
                     *           "id": "proj_7aqg92ppkx2zs917xhfv0qstjw",
                     *           "name": "Project 5",
                     *           "appStoreAppId": "1234567890",
                     *           "playStorePackageName": "com.example.weather",
                     *           "createdAt": "2026-11-28T14:55:42.263Z",
                     *           "updatedAt": "2026-11-28T14:55:42.263Z",
                     *           "metadata": {
                     *             "locales": [
                     *               "en-US"
                     *             ],
                     *             "lastSyncedAt": null
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            project: {
                                /** @example proj_0123456789abcdefghjkmnpqrs */
                                id: string;
                                name: string;
                                appStoreAppId: string | null;
                                playStorePackageName: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                                metadata: {
                                    /** @description Sorted union of the locales with a listing in either store */
                                    locales: string[];
                                    lastSyncedAt: string | null;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "projects.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "deleted": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            deleted: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "projects.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Renamed"
                 *     }
                 */
                "application/json": {
                    /** @description 1..200 characters on one line; surrounding whitespace is trimmed */
                    name?: string;
                    appStoreAppId?: string | null;
                    playStorePackageName?: string | null;
                    sourceLocale?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "project": {
                     *           "id": "proj_a9q60sv01grvt03y03tcn3apew",
                     *           "name": "Renamed",
                     *           "appStoreAppId": "1234567890",
                     *           "playStorePackageName": "com.example.weather",
                     *           "updatedAt": "2026-11-28T14:55:47.042Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            project: {
                                /** @example proj_0123456789abcdefghjkmnpqrs */
                                id: string;
                                name: string;
                                appStoreAppId: string | null;
                                playStorePackageName: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "projects.sync": {
        parameters: {
            query?: never;
            header?: {
                /** @description `respond-async` runs the operation in the background (202) */
                prefer?: string;
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": {
                    /**
                     * @default both
                     * @enum {string}
                     */
                    store?: "appstore" | "playstore" | "both";
                    /** @description What to take part: listings (texts, media, release notes) and products (in-app purchase and subscription texts; App Store custom product pages with their media, and in-app events) and details (app details and App Review information); all when omitted */
                    include?: ("listings" | "products" | "details")[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "syncedLocales": [
                     *           "de-DE",
                     *           "en-US"
                     *         ],
                     *         "appStore": {
                     *           "synced": true,
                     *           "locales": 1,
                     *           "products": 1,
                     *           "productPages": 1,
                     *           "appEvents": 1,
                     *           "conflicts": 0
                     *         },
                     *         "playStore": {
                     *           "synced": true,
                     *           "locales": 2,
                     *           "products": 1,
                     *           "details": 1,
                     *           "conflicts": 0
                     *         },
                     *         "conflicts": [],
                     *         "failures": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            syncedLocales: string[];
                            appStore: {
                                synced: boolean;
                                locales: number;
                                /** @description In-app purchases and subscriptions read */
                                products?: number;
                                /** @description App Store custom product pages read */
                                productPages?: number;
                                /** @description App Store in-app events read */
                                appEvents?: number;
                                /** @description App details the store changed here */
                                details?: number;
                                conflicts?: number;
                                error?: {
                                    code: string;
                                    message: string;
                                };
                            };
                            playStore: {
                                synced: boolean;
                                locales: number;
                                /** @description In-app purchases and subscriptions read */
                                products?: number;
                                /** @description App Store custom product pages read */
                                productPages?: number;
                                /** @description App Store in-app events read */
                                appEvents?: number;
                                /** @description App details the store changed here */
                                details?: number;
                                conflicts?: number;
                                error?: {
                                    code: string;
                                    message: string;
                                };
                            };
                            /** @description Fields changed here and in the store; the local value was kept */
                            conflicts: {
                                store: string;
                                /** @description The locale; "" for an app detail (details.<field>), which has none */
                                locale: string;
                                /** @description A listing field, media.<slotType>, products.<productId>.<field> or details.<field> */
                                field: string;
                                localValue: string | null;
                                storeValue: string | null;
                                /** @description A media slot (field media.<slotType>): our files, SHA-256 */
                                localMedia?: string[];
                                /** @description A media slot: the store's files */
                                storeMedia?: string[];
                            }[];
                            failures: {
                                store: string;
                                locale: string | null;
                                field: string | null;
                                /** @description Media: the file the store refused */
                                sha256?: string;
                                error: {
                                    code: string;
                                    message: string;
                                };
                            }[];
                        };
                    };
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            operation: {
                                id: string;
                                /** @enum {string} */
                                kind: "sync" | "push";
                                /** @enum {string} */
                                status: "queued" | "running" | "succeeded" | "partial" | "failed" | "cancelled";
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                };
                                stores: string[];
                                locales: string[] | null;
                                progress: {
                                    done: number;
                                    total: number;
                                    stores: {
                                        [key: string]: {
                                            done: number;
                                            total: number;
                                            locales: string[];
                                            /** @description Media files the stores settled, refused, of those to upload */
                                            media?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                            /** @description Products whose texts the stores took, refused, of those to write */
                                            products?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                        };
                                    };
                                    /** @description Media files the stores settled, refused, of those to upload */
                                    media?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                    /** @description Products whose texts the stores took, refused, of those to write */
                                    products?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                } | null;
                                cancelRequested: boolean;
                                outcome: {
                                    [key: string]: unknown;
                                } | null;
                                queuedAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                startedAt: string;
                                finishedAt: string | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "projects.push": {
        parameters: {
            query?: never;
            header?: {
                /** @description `respond-async` runs the operation in the background (202) */
                prefer?: string;
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": {
                    /**
                     * @default both
                     * @enum {string}
                     */
                    store?: "appstore" | "playstore" | "both";
                    /** @description What to take part: listings (texts, media, release notes) and products (in-app purchase and subscription texts; App Store custom product pages with their media, and in-app events) and details (app details and App Review information); all when omitted */
                    include?: ("listings" | "products" | "details")[];
                    /** @description Locales to push; all when omitted */
                    locales?: string[];
                    /** @description Answer what the push would change (per store, locale, field) without writing */
                    dryRun?: boolean;
                    /** @description Also delete from the store the locales deleted here (default false: additive) */
                    prune?: boolean;
                    /** @description Google Play: commit the edit with changesNotSentForReview=true */
                    changesNotSentForReview?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "pushedLocales": [
                     *           "en-US"
                     *         ],
                     *         "appStore": {
                     *           "pushed": true,
                     *           "locales": 1
                     *         },
                     *         "playStore": {
                     *           "pushed": true,
                     *           "locales": 0
                     *         },
                     *         "written": [
                     *           {
                     *             "store": "appstore",
                     *             "locale": "en-US",
                     *             "fields": 3,
                     *             "mediaSlots": 0,
                     *             "mediaItems": 0,
                     *             "releaseNotes": 0,
                     *             "products": 0,
                     *             "failures": 0
                     *           }
                     *         ],
                     *         "failures": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            pushedLocales: string[];
                            appStore: {
                                pushed: boolean;
                                locales: number;
                                media?: {
                                    /** @description Media slots the push brought to their files */
                                    slots: number;
                                    uploaded: number;
                                    deleted: number;
                                    uploadedBytes: number;
                                };
                                /** @description Google Play releases whose notes were written */
                                releaseNotes?: number;
                                /** @description Products all of whose changed texts the store took */
                                products?: number;
                                /** @description App details the store took */
                                details?: number;
                                error?: {
                                    code: string;
                                    message: string;
                                };
                            };
                            playStore: {
                                pushed: boolean;
                                locales: number;
                                media?: {
                                    /** @description Media slots the push brought to their files */
                                    slots: number;
                                    uploaded: number;
                                    deleted: number;
                                    uploadedBytes: number;
                                };
                                /** @description Google Play releases whose notes were written */
                                releaseNotes?: number;
                                /** @description Products all of whose changed texts the store took */
                                products?: number;
                                /** @description App details the store took */
                                details?: number;
                                error?: {
                                    code: string;
                                    message: string;
                                };
                            };
                            /** @description Per store and locale, what was written of each kind and how many changes failed */
                            written: {
                                store: string;
                                locale: string;
                                /** @description Text fields the store took */
                                fields: number;
                                /** @description Screenshot and preview slots brought to their files */
                                mediaSlots: number;
                                /** @description Files uploaded or removed */
                                mediaItems: number;
                                /** @description Releases whose notes in this language the store took */
                                releaseNotes: number;
                                /** @description Product texts in this language the store took */
                                products: number;
                                /** @description Changes here the store refused or the push left out: see failures */
                                failures: number;
                            }[];
                            /** @description Everything a store refused: store, locale, field, the store error */
                            failures: {
                                store: string;
                                locale: string | null;
                                field: string | null;
                                /** @description Media: the file the store refused */
                                sha256?: string;
                                error: {
                                    code: string;
                                    message: string;
                                };
                            }[];
                        } | {
                            /** @enum {boolean} */
                            dryRun: true;
                            stores: string[];
                            /** @description store → counts per kind; a store without changes is left out */
                            counts: {
                                [key: string]: {
                                    fields: number;
                                    /** @description Screenshot and preview slots */
                                    media: number;
                                    /** @description Google Play release notes (release × language) */
                                    releaseNotes: number;
                                    /** @description In-app purchase and subscription texts (product × locale × field) */
                                    products: number;
                                    /** @description App details and App Review information */
                                    details?: number;
                                    removedLocales: number;
                                };
                            };
                            changeCount: number;
                            changes: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: {
                                            old: string | null;
                                            new: string | null;
                                            conflict?: {
                                                storeValue: string | null;
                                            };
                                        };
                                    };
                                };
                            };
                            mediaChangeCount: number;
                            /** @description Bytes of media the push would upload */
                            uploadBytes: number;
                            /** @description store → locale → slot type → what the push would do there */
                            media: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: {
                                            added: string[];
                                            removed: string[];
                                            reordered: boolean;
                                            /** @description Positions where a new file takes the place of another */
                                            replaced: {
                                                old: string;
                                                new: string;
                                            }[];
                                            uploadBytes: number;
                                            /** @description In conflict with the store: left alone by the push */
                                            conflict: boolean;
                                            /** @description The store calls planned, in order */
                                            calls: string[];
                                        };
                                    };
                                };
                            };
                            releaseNoteChangeCount: number;
                            /** @description Google Play release notes: track → version code → language → change */
                            releaseNotes: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: {
                                            old: string | null;
                                            new: string | null;
                                            conflict?: {
                                                storeValue: string | null;
                                            };
                                        };
                                    };
                                };
                            };
                            productChangeCount: number;
                            /** @description store → product id → locale → field → change (benefits: one per line) */
                            products: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: {
                                            [key: string]: {
                                                old: string | null;
                                                new: string | null;
                                                conflict?: {
                                                    storeValue: string | null;
                                                };
                                            };
                                        };
                                    };
                                };
                            };
                            approval: {
                                required: boolean;
                                approved: boolean;
                                approvedBy: string | null;
                                approvedAt: string | null;
                            };
                        };
                    };
                };
            };
            /** @description Default Response */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            operation: {
                                id: string;
                                /** @enum {string} */
                                kind: "sync" | "push";
                                /** @enum {string} */
                                status: "queued" | "running" | "succeeded" | "partial" | "failed" | "cancelled";
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                };
                                stores: string[];
                                locales: string[] | null;
                                progress: {
                                    done: number;
                                    total: number;
                                    stores: {
                                        [key: string]: {
                                            done: number;
                                            total: number;
                                            locales: string[];
                                            /** @description Media files the stores settled, refused, of those to upload */
                                            media?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                            /** @description Products whose texts the stores took, refused, of those to write */
                                            products?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                        };
                                    };
                                    /** @description Media files the stores settled, refused, of those to upload */
                                    media?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                    /** @description Products whose texts the stores took, refused, of those to write */
                                    products?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                } | null;
                                cancelRequested: boolean;
                                outcome: {
                                    [key: string]: unknown;
                                } | null;
                                queuedAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                startedAt: string;
                                finishedAt: string | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "projects.operations": {
        parameters: {
            query?: {
                /** @description 1..100 */
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "operations": [],
                     *         "total": 0,
                     *         "limit": 20,
                     *         "offset": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            operations: {
                                id: string;
                                /** @enum {string} */
                                kind: "sync" | "push";
                                /** @enum {string} */
                                status: "queued" | "running" | "succeeded" | "partial" | "failed" | "cancelled";
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                };
                                stores: string[];
                                locales: string[] | null;
                                progress: {
                                    done: number;
                                    total: number;
                                    stores: {
                                        [key: string]: {
                                            done: number;
                                            total: number;
                                            locales: string[];
                                            /** @description Media files the stores settled, refused, of those to upload */
                                            media?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                            /** @description Products whose texts the stores took, refused, of those to write */
                                            products?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                        };
                                    };
                                    /** @description Media files the stores settled, refused, of those to upload */
                                    media?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                    /** @description Products whose texts the stores took, refused, of those to write */
                                    products?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                } | null;
                                cancelRequested: boolean;
                                outcome: {
                                    [key: string]: unknown;
                                } | null;
                                queuedAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                startedAt: string;
                                finishedAt: string | null;
                            }[];
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "operations.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                operationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "operation": {
                     *           "id": "op_5pdxbg6k30zhmbg91erejs4n44",
                     *           "kind": "sync",
                     *           "status": "queued",
                     *           "actor": {
                     *             "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "operator": null
                     *           },
                     *           "stores": [
                     *             "appstore",
                     *             "playstore"
                     *           ],
                     *           "locales": null,
                     *           "progress": null,
                     *           "cancelRequested": false,
                     *           "outcome": null,
                     *           "queuedAt": "2026-11-28T14:55:44.740Z",
                     *           "startedAt": "2026-11-28T14:55:44.740Z",
                     *           "finishedAt": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            operation: {
                                id: string;
                                /** @enum {string} */
                                kind: "sync" | "push";
                                /** @enum {string} */
                                status: "queued" | "running" | "succeeded" | "partial" | "failed" | "cancelled";
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                };
                                stores: string[];
                                locales: string[] | null;
                                progress: {
                                    done: number;
                                    total: number;
                                    stores: {
                                        [key: string]: {
                                            done: number;
                                            total: number;
                                            locales: string[];
                                            /** @description Media files the stores settled, refused, of those to upload */
                                            media?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                            /** @description Products whose texts the stores took, refused, of those to write */
                                            products?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                        };
                                    };
                                    /** @description Media files the stores settled, refused, of those to upload */
                                    media?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                    /** @description Products whose texts the stores took, refused, of those to write */
                                    products?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                } | null;
                                cancelRequested: boolean;
                                outcome: {
                                    [key: string]: unknown;
                                } | null;
                                queuedAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                startedAt: string;
                                finishedAt: string | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "operations.cancel": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
                operationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "operation": {
                     *           "id": "op_zb765gxdjx13hbzmkhezhpnd90",
                     *           "kind": "sync",
                     *           "status": "cancelled",
                     *           "actor": {
                     *             "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "operator": null
                     *           },
                     *           "stores": [
                     *             "appstore",
                     *             "playstore"
                     *           ],
                     *           "locales": null,
                     *           "progress": null,
                     *           "cancelRequested": true,
                     *           "outcome": {
                     *             "cancelled": "before it started"
                     *           },
                     *           "queuedAt": "2026-11-28T14:55:46.133Z",
                     *           "startedAt": "2026-11-28T14:55:46.133Z",
                     *           "finishedAt": "2026-11-28T14:55:46.134Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            operation: {
                                id: string;
                                /** @enum {string} */
                                kind: "sync" | "push";
                                /** @enum {string} */
                                status: "queued" | "running" | "succeeded" | "partial" | "failed" | "cancelled";
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                };
                                stores: string[];
                                locales: string[] | null;
                                progress: {
                                    done: number;
                                    total: number;
                                    stores: {
                                        [key: string]: {
                                            done: number;
                                            total: number;
                                            locales: string[];
                                            /** @description Media files the stores settled, refused, of those to upload */
                                            media?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                            /** @description Products whose texts the stores took, refused, of those to write */
                                            products?: {
                                                done: number;
                                                failed: number;
                                                total: number;
                                            };
                                        };
                                    };
                                    /** @description Media files the stores settled, refused, of those to upload */
                                    media?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                    /** @description Products whose texts the stores took, refused, of those to write */
                                    products?: {
                                        done: number;
                                        failed: number;
                                        total: number;
                                    };
                                } | null;
                                cancelRequested: boolean;
                                outcome: {
                                    [key: string]: unknown;
                                } | null;
                                queuedAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                startedAt: string;
                                finishedAt: string | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.list": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "listings": [
                     *           {
                     *             "store": "appstore",
                     *             "locale": "en-US",
                     *             "state": "modified",
                     *             "fields": {
                     *               "name": {
                     *                 "value": "Weather Pro",
                     *                 "base": null,
                     *                 "state": "modified"
                     *               },
                     *               "subtitle": {
                     *                 "value": "Rain",
                     *                 "base": null,
                     *                 "state": "modified"
                     *               },
                     *               "description": {
                     *                 "value": "Forecasts.",
                     *                 "base": null,
                     *                 "state": "modified"
                     *               },
                     *               "keywords": {
                     *                 "value": null,
                     *                 "base": null,
                     *                 "state": "unchanged"
                     *               },
                     *               "promotionalText": {
                     *                 "value": null,
                     *                 "base": null,
                     *                 "state": "unchanged"
                     *               },
                     *               "whatsNew": {
                     *                 "value": null,
                     *                 "base": null,
                     *                 "state": "unchanged"
                     *               },
                     *               "marketingUrl": {
                     *                 "value": null,
                     *                 "base": null,
                     *                 "state": "unchanged"
                     *               },
                     *               "supportUrl": {
                     *                 "value": null,
                     *                 "base": null,
                     *                 "state": "unchanged"
                     *               },
                     *               "privacyPolicyUrl": {
                     *                 "value": null,
                     *                 "base": null,
                     *                 "state": "unchanged"
                     *               }
                     *             },
                     *             "updatedAt": "2026-11-28T14:55:45.914Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            listings: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                /** @description Every field of the store, set or not */
                                fields: {
                                    [key: string]: {
                                        value: string | null;
                                        base: string | null;
                                        /** @enum {string} */
                                        state: "unchanged" | "modified" | "conflict";
                                        storeValue?: string | null;
                                    };
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code: Apple zh-Hans, Google zh-CN */
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "listing": {
                     *           "store": "appstore",
                     *           "locale": "en-US",
                     *           "state": "modified",
                     *           "fields": {
                     *             "name": {
                     *               "value": "Weather Pro",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "subtitle": {
                     *               "value": "Rain",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "description": {
                     *               "value": "Forecasts.",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "keywords": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "promotionalText": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "whatsNew": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "marketingUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "supportUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "privacyPolicyUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             }
                     *           },
                     *           "updatedAt": "2026-11-28T14:55:48.611Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            listing: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                /** @description Every field of the store, set or not */
                                fields: {
                                    [key: string]: {
                                        value: string | null;
                                        base: string | null;
                                        /** @enum {string} */
                                        state: "unchanged" | "modified" | "conflict";
                                        storeValue?: string | null;
                                    };
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code: Apple zh-Hans, Google zh-CN */
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "deleted": true,
                     *         "pendingStoreRemoval": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            deleted: boolean;
                            pendingStoreRemoval: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code: Apple zh-Hans, Google zh-CN */
                locale: string;
            };
            cookie?: never;
        };
        /** @description Fields to change: App Store fields for an appstore listing, Google Play fields for a playstore listing. `null` or "" clears a field. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "subtitle": "Hello"
                 *     }
                 */
                "application/json": {
                    name?: string | null;
                    subtitle?: string | null;
                    description?: string | null;
                    keywords?: string | null;
                    promotionalText?: string | null;
                    whatsNew?: string | null;
                    marketingUrl?: string | null;
                    supportUrl?: string | null;
                    privacyPolicyUrl?: string | null;
                    title?: string | null;
                    shortDescription?: string | null;
                    fullDescription?: string | null;
                    video?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "listing": {
                     *           "store": "appstore",
                     *           "locale": "en-US",
                     *           "state": "modified",
                     *           "fields": {
                     *             "name": {
                     *               "value": "Weather Pro",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "subtitle": {
                     *               "value": "Hello",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "description": {
                     *               "value": "Forecasts.",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "keywords": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "promotionalText": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "whatsNew": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "marketingUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "supportUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "privacyPolicyUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             }
                     *           },
                     *           "updatedAt": "2026-11-28T14:55:45.425Z"
                     *         },
                     *         "warnings": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            listing: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                /** @description Every field of the store, set or not */
                                fields: {
                                    [key: string]: {
                                        value: string | null;
                                        base: string | null;
                                        /** @enum {string} */
                                        state: "unchanged" | "modified" | "conflict";
                                        storeValue?: string | null;
                                    };
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                            /** @description Advice that did not block the write */
                            warnings: {
                                field: string;
                                message: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.validate": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code: Apple zh-Hans, Google zh-CN */
                locale: string;
            };
            cookie?: never;
        };
        /** @description Fields to change: App Store fields for an appstore listing, Google Play fields for a playstore listing. `null` or "" clears a field. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "subtitle": "Rain"
                 *     }
                 */
                "application/json": {
                    name?: string | null;
                    subtitle?: string | null;
                    description?: string | null;
                    keywords?: string | null;
                    promotionalText?: string | null;
                    whatsNew?: string | null;
                    marketingUrl?: string | null;
                    supportUrl?: string | null;
                    privacyPolicyUrl?: string | null;
                    title?: string | null;
                    shortDescription?: string | null;
                    fullDescription?: string | null;
                    video?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "valid": true,
                     *         "warnings": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /**
                             * @description Invalid texts are a 400 naming every field
                             * @enum {boolean}
                             */
                            valid: true;
                            /** @description Advice that did not block the write */
                            warnings: {
                                field: string;
                                message: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.diff": {
        parameters: {
            query?: {
                store?: "appstore" | "playstore" | "both";
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "inSync": false,
                     *         "counts": {
                     *           "appstore": {
                     *             "fields": 3,
                     *             "media": 0,
                     *             "releaseNotes": 0,
                     *             "products": 0,
                     *             "removedLocales": 0
                     *           }
                     *         },
                     *         "changeCount": 3,
                     *         "stores": {
                     *           "appstore": {
                     *             "en-US": {
                     *               "name": {
                     *                 "old": null,
                     *                 "new": "Weather Pro"
                     *               },
                     *               "subtitle": {
                     *                 "old": null,
                     *                 "new": "Rain"
                     *               },
                     *               "description": {
                     *                 "old": null,
                     *                 "new": "Forecasts."
                     *               }
                     *             }
                     *           }
                     *         },
                     *         "removedLocales": {},
                     *         "media": {},
                     *         "mediaChangeCount": 0,
                     *         "releaseNotes": {},
                     *         "releaseNoteChangeCount": 0,
                     *         "products": {},
                     *         "productChangeCount": 0,
                     *         "details": {},
                     *         "detailChangeCount": 0,
                     *         "hash": "dabc3e881bba380981293b2eb8e93e35198b2f56802fff596201d18d5f300be9",
                     *         "approval": {
                     *           "required": false,
                     *           "approved": false,
                     *           "approvedBy": null,
                     *           "approvedAt": null
                     *         },
                     *         "storeDrift": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            inSync: boolean;
                            /** @description store → counts per kind; a store without changes is left out */
                            counts: {
                                [key: string]: {
                                    fields: number;
                                    /** @description Screenshot and preview slots */
                                    media: number;
                                    /** @description Google Play release notes (release × language) */
                                    releaseNotes: number;
                                    /** @description In-app purchase and subscription texts (product × locale × field) */
                                    products: number;
                                    /** @description App details and App Review information */
                                    details?: number;
                                    removedLocales: number;
                                };
                            };
                            changeCount: number;
                            /** @description store → locale → field → {old: base, new: working copy} */
                            stores: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: {
                                            old: string | null;
                                            new: string | null;
                                            conflict?: {
                                                storeValue: string | null;
                                            };
                                        };
                                    };
                                };
                            };
                            /** @description Locales deleted here that only a push with prune removes from the store */
                            removedLocales: {
                                [key: string]: string[];
                            };
                            /** @description store → locale → slot type → change (SHA-256 lists), for slots whose files differ from the store */
                            media: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: {
                                            old: string[];
                                            new: string[];
                                            added: string[];
                                            removed: string[];
                                            reordered: boolean;
                                            uploadBytes: number;
                                            /** @description In conflict: the store's files; a push leaves the slot alone until it is edited */
                                            conflict?: string[];
                                        };
                                    };
                                };
                            };
                            /** @description Slots whose media differ from the store */
                            mediaChangeCount: number;
                            /** @description Google Play release notes: track → version code → language → change */
                            releaseNotes: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: {
                                            old: string | null;
                                            new: string | null;
                                            conflict?: {
                                                storeValue: string | null;
                                            };
                                        };
                                    };
                                };
                            };
                            /** @description Release notes (release × language) that differ */
                            releaseNoteChangeCount: number;
                            /** @description store → product id → locale → field → change (benefits: one per line) */
                            products: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: {
                                            [key: string]: {
                                                old: string | null;
                                                new: string | null;
                                                conflict?: {
                                                    storeValue: string | null;
                                                };
                                            };
                                        };
                                    };
                                };
                            };
                            /** @description Product texts (product × locale × field) that differ */
                            productChangeCount: number;
                            /** @description store → detail (review.<name> for App Review information) → change; the demo account password only as "set" */
                            details: {
                                [key: string]: {
                                    [key: string]: {
                                        old: string | null;
                                        new: string | null;
                                        conflict?: {
                                            storeValue: string | null;
                                        };
                                    };
                                };
                            };
                            /** @description App details that differ */
                            detailChangeCount: number;
                            /** @description SHA-256 of the whole project diff; approvals are bound to it */
                            hash: string;
                            approval: {
                                required: boolean;
                                approved: boolean;
                                approvedBy: string | null;
                                approvedAt: string | null;
                            };
                            /** @description Changed in the store since the last sync (drift checks); a sync merges them */
                            storeDrift: {
                                store: string;
                                locale: string;
                                /** @description The field, or * for a locale added in the store */
                                field: string;
                                base: string | null;
                                storeValue: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                detectedAt: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.history": {
        parameters: {
            query?: {
                /** @description 1..100 */
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code: Apple zh-Hans, Google zh-CN */
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "entries": [
                     *           {
                     *             "id": "hist_j4sbmd919n9t0dwngm236vnnh0",
                     *             "field": "description",
                     *             "old": null,
                     *             "new": "Forecasts.",
                     *             "source": "edit",
                     *             "actor": {
                     *               "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *               "operator": null,
                     *               "name": "Admin"
                     *             },
                     *             "createdAt": "2026-11-28T14:55:45.478Z"
                     *           },
                     *           {
                     *             "id": "hist_e483xe70a8dw2277wzvq2dvkvc",
                     *             "field": "name",
                     *             "old": null,
                     *             "new": "Weather Pro",
                     *             "source": "edit",
                     *             "actor": {
                     *               "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *               "operator": null,
                     *               "name": "Admin"
                     *             },
                     *             "createdAt": "2026-11-28T14:55:45.478Z"
                     *           }
                     *         ],
                     *         "total": 3,
                     *         "limit": 20,
                     *         "offset": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            entries: {
                                id: string;
                                field: string;
                                old: string | null;
                                new: string | null;
                                /** @enum {string} */
                                source: "edit" | "revert" | "copy" | "import" | "translation" | "sync" | "push";
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                    name: string | null;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            }[];
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.revert": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code: Apple zh-Hans, Google zh-CN */
                locale: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "historyId": "hist_x88r5fvyhc2zzhs4ft9stv5qk4"
                 *     }
                 */
                "application/json": {
                    historyId: string;
                    /**
                     * @description before undoes the entry
                     * @default before
                     * @enum {string}
                     */
                    to?: "before" | "after";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "listing": {
                     *           "store": "appstore",
                     *           "locale": "en-US",
                     *           "state": "modified",
                     *           "fields": {
                     *             "name": {
                     *               "value": "Weather Pro",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "subtitle": {
                     *               "value": "Rain",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "description": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "keywords": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "promotionalText": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "whatsNew": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "marketingUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "supportUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "privacyPolicyUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             }
                     *           },
                     *           "updatedAt": "2026-11-28T14:55:47.639Z"
                     *         },
                     *         "warnings": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            listing: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                /** @description Every field of the store, set or not */
                                fields: {
                                    [key: string]: {
                                        value: string | null;
                                        base: string | null;
                                        /** @enum {string} */
                                        state: "unchanged" | "modified" | "conflict";
                                        storeValue?: string | null;
                                    };
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                            /** @description Advice that did not block the write */
                            warnings: {
                                field: string;
                                message: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.copy": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "from": {
                 *         "store": "appstore",
                 *         "locale": "en-US"
                 *       },
                 *       "to": {
                 *         "store": "playstore"
                 *       }
                 *     }
                 */
                "application/json": {
                    from: {
                        /** @enum {string} */
                        store: "appstore" | "playstore";
                        locale: string;
                    };
                    to: {
                        /** @enum {string} */
                        store: "appstore" | "playstore";
                        /** @description Defaults to the mapped locale of `from` */
                        locale?: string;
                    };
                    /** @description Source fields; default all mapped */
                    fields?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "listing": {
                     *           "store": "playstore",
                     *           "locale": "en-US",
                     *           "state": "modified",
                     *           "fields": {
                     *             "title": {
                     *               "value": "Weather Pro",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "shortDescription": {
                     *               "value": "Rain",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "fullDescription": {
                     *               "value": "Forecasts.",
                     *               "base": null,
                     *               "state": "modified"
                     *             },
                     *             "video": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             }
                     *           },
                     *           "updatedAt": "2026-11-28T14:55:45.401Z"
                     *         },
                     *         "warnings": [],
                     *         "copied": [
                     *           {
                     *             "from": "name",
                     *             "to": "title"
                     *           },
                     *           {
                     *             "from": "subtitle",
                     *             "to": "shortDescription"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            listing: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                /** @description Every field of the store, set or not */
                                fields: {
                                    [key: string]: {
                                        value: string | null;
                                        base: string | null;
                                        /** @enum {string} */
                                        state: "unchanged" | "modified" | "conflict";
                                        storeValue?: string | null;
                                    };
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                            /** @description Advice that did not block the write */
                            warnings: {
                                field: string;
                                message: string;
                            }[];
                            copied: {
                                from: string;
                                to: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.approve": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description The diff hash as reviewed (GET /diff) */
                    hash?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "approvalId": "appr_jdgsr7wjcf9qeyj21qky6amb7m",
                     *         "hash": "dabc3e881bba380981293b2eb8e93e35198b2f56802fff596201d18d5f300be9",
                     *         "changeCount": 3,
                     *         "approvedBy": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *         "approvedAt": "2026-11-28T14:55:43.258Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            approvalId: string;
                            hash: string;
                            changeCount: number;
                            approvedBy: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            approvedAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "approvalRequests.list": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "requests": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            requests: {
                                id: string;
                                projectId: string;
                                /** @description The diff hash the request is about */
                                hash: string;
                                note: string | null;
                                requestedBy: {
                                    memberId: string | null;
                                    name: string | null;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /** @description What the pending changes hold, per kind */
                                changes: {
                                    fields: number;
                                    /** @description Screenshot and preview slots */
                                    media: number;
                                    releaseNotes: number;
                                    /** @description In-app purchase and subscription texts */
                                    products: number;
                                    removedLocales: number;
                                };
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "approvalRequests.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "note": "Please look"
                 *     }
                 */
                "application/json": {
                    /** @description What the admin should know */
                    note?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "request": {
                     *           "id": "areq_vmrbbjzppg2yetkr19n0vy40b4",
                     *           "projectId": "proj_4vt2nv4e6cw54gt27gf0fd25wg",
                     *           "hash": "dabc3e881bba380981293b2eb8e93e35198b2f56802fff596201d18d5f300be9",
                     *           "note": "Please look",
                     *           "requestedBy": {
                     *             "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "name": "Admin"
                     *           },
                     *           "createdAt": "2026-11-28T14:55:48.091Z",
                     *           "changes": {
                     *             "fields": 3,
                     *             "media": 0,
                     *             "releaseNotes": 0,
                     *             "products": 0,
                     *             "removedLocales": 0
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            request: {
                                id: string;
                                projectId: string;
                                /** @description The diff hash the request is about */
                                hash: string;
                                note: string | null;
                                requestedBy: {
                                    memberId: string | null;
                                    name: string | null;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /** @description What the pending changes hold, per kind */
                                changes: {
                                    fields: number;
                                    /** @description Screenshot and preview slots */
                                    media: number;
                                    releaseNotes: number;
                                    /** @description In-app purchase and subscription texts */
                                    products: number;
                                    removedLocales: number;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.export": {
        parameters: {
            query?: {
                format?: "fastlane";
                archive?: "tar.gz" | "zip";
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The archive, as an attachment */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/gzip": Blob;
                    "application/zip": Blob;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.export": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The archive */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/gzip": Blob;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.slotTypes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "slotTypes": [
                     *           {
                     *             "store": "appstore",
                     *             "slotType": "APP_IPHONE_67",
                     *             "name": "iPhone 6.9″",
                     *             "kind": "image",
                     *             "label": "App Store screenshots APP_IPHONE_67",
                     *             "maxItems": 10,
                     *             "formats": [
                     *               "png",
                     *               "jpeg"
                     *             ],
                     *             "alpha": "forbidden",
                     *             "maxBytes": 31457280,
                     *             "sizes": [
                     *               {
                     *                 "width": 1260,
                     *                 "height": 2736
                     *               },
                     *               {
                     *                 "width": 1290,
                     *                 "height": 2796
                     *               }
                     *             ]
                     *           },
                     *           {
                     *             "store": "appstore",
                     *             "slotType": "APP_IPHONE_65",
                     *             "name": "iPhone 6.5″",
                     *             "kind": "image",
                     *             "label": "App Store screenshots APP_IPHONE_65",
                     *             "maxItems": 10,
                     *             "formats": [
                     *               "png",
                     *               "jpeg"
                     *             ],
                     *             "alpha": "forbidden",
                     *             "maxBytes": 31457280,
                     *             "sizes": [
                     *               {
                     *                 "width": 1242,
                     *                 "height": 2688
                     *               },
                     *               {
                     *                 "width": 1284,
                     *                 "height": 2778
                     *               }
                     *             ]
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            slotTypes: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                slotType: string;
                                /** @description What people call it: iPhone 6.9″, iPad 13″, Phone, 7-inch tablet */
                                name: string;
                                /** @enum {string} */
                                kind: "image" | "video";
                                label: string;
                                maxItems: number;
                                formats: string[];
                                sizes?: {
                                    width: number;
                                    height: number;
                                }[];
                                range?: {
                                    min: number;
                                    max: number;
                                    maxRatio: number;
                                    aspect?: number;
                                };
                                /** @enum {string} */
                                alpha: "forbidden" | "required" | "allowed";
                                maxBytes: number;
                                durationSeconds?: {
                                    min: number;
                                    max: number;
                                };
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.list": {
        parameters: {
            query?: {
                store?: "appstore" | "playstore";
                locale?: string;
                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                productPage?: string;
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "slots": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            slots: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                slotType: string;
                                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                                productPage?: string;
                                /** @enum {string} */
                                kind: "image" | "video";
                                maxItems: number;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                items: {
                                    id: string;
                                    sha256: string;
                                    /** @description MD5 hex: App Store Connect's sourceFileChecksum */
                                    md5: string;
                                    /** @enum {string} */
                                    kind: "image" | "video";
                                    contentType: string;
                                    bytes: number;
                                    width: number | null;
                                    height: number | null;
                                    durationMs: number | null;
                                    fileName: string;
                                    /** @description 1-based place in the slot */
                                    position: number;
                                    url: string;
                                    thumbnailUrl: string | null;
                                }[];
                                /** @description SHA-256 of what the store had at the last sync or push, in order; null if never read */
                                base: string[] | null;
                                /** @description The store's files (SHA-256, in order) when a sync found the slot changed here and in the store; editing the slot resolves it */
                                conflict: string[] | null;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.reorder": {
        parameters: {
            query?: {
                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                productPage?: string;
            };
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code */
                locale: string;
                /** @description App Store: a screenshot display type (APP_IPHONE_67, ...) or PREVIEW_<previewType> (PREVIEW_IPHONE_67, ...); Google Play: phoneScreenshots, sevenInchScreenshots, tenInchScreenshots, tvScreenshots, wearScreenshots, icon, featureGraphic, tvBanner */
                slotType: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "items": [
                 *         "med_bsqs9nffbwjx99nvk7avqx8qn8"
                 *       ]
                 *     }
                 */
                "application/json": {
                    items: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "slot": {
                     *           "store": "playstore",
                     *           "locale": "en-US",
                     *           "slotType": "phoneScreenshots",
                     *           "kind": "image",
                     *           "maxItems": 8,
                     *           "state": "modified",
                     *           "items": [
                     *             {
                     *               "id": "med_bsqs9nffbwjx99nvk7avqx8qn8",
                     *               "sha256": "09087dfeb927515cf54f6f73211c42aee21c2f01e1000b102bd5d8feba24802a",
                     *               "md5": "9b527e76e1b170fbbb8b3d111c6e7c75",
                     *               "kind": "image",
                     *               "contentType": "image/png",
                     *               "bytes": 4272,
                     *               "width": 320,
                     *               "height": 640,
                     *               "durationMs": null,
                     *               "fileName": "shot.png",
                     *               "position": 1,
                     *               "url": "/api/v1/media/09087dfeb927515cf54f6f73211c42aee21c2f01e1000b102bd5d8feba24802a",
                     *               "thumbnailUrl": "/api/v1/media/09087dfeb927515cf54f6f73211c42aee21c2f01e1000b102bd5d8feba24802a?thumb=1"
                     *             }
                     *           ],
                     *           "base": null,
                     *           "conflict": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            slot: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                slotType: string;
                                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                                productPage?: string;
                                /** @enum {string} */
                                kind: "image" | "video";
                                maxItems: number;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                items: {
                                    id: string;
                                    sha256: string;
                                    /** @description MD5 hex: App Store Connect's sourceFileChecksum */
                                    md5: string;
                                    /** @enum {string} */
                                    kind: "image" | "video";
                                    contentType: string;
                                    bytes: number;
                                    width: number | null;
                                    height: number | null;
                                    durationMs: number | null;
                                    fileName: string;
                                    /** @description 1-based place in the slot */
                                    position: number;
                                    url: string;
                                    thumbnailUrl: string | null;
                                }[];
                                /** @description SHA-256 of what the store had at the last sync or push, in order; null if never read */
                                base: string[] | null;
                                /** @description The store's files (SHA-256, in order) when a sync found the slot changed here and in the store; editing the slot resolves it */
                                conflict: string[] | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.delete": {
        parameters: {
            query?: {
                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                productPage?: string;
            };
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code */
                locale: string;
                /** @description App Store: a screenshot display type (APP_IPHONE_67, ...) or PREVIEW_<previewType> (PREVIEW_IPHONE_67, ...); Google Play: phoneScreenshots, sevenInchScreenshots, tenInchScreenshots, tvScreenshots, wearScreenshots, icon, featureGraphic, tvBanner */
                slotType: string;
                itemId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "deleted": true,
                     *         "slot": {
                     *           "store": "playstore",
                     *           "locale": "en-US",
                     *           "slotType": "phoneScreenshots",
                     *           "kind": "image",
                     *           "maxItems": 8,
                     *           "state": "unchanged",
                     *           "items": [],
                     *           "base": null,
                     *           "conflict": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {boolean} */
                            deleted: true;
                            slot: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                slotType: string;
                                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                                productPage?: string;
                                /** @enum {string} */
                                kind: "image" | "video";
                                maxItems: number;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                items: {
                                    id: string;
                                    sha256: string;
                                    /** @description MD5 hex: App Store Connect's sourceFileChecksum */
                                    md5: string;
                                    /** @enum {string} */
                                    kind: "image" | "video";
                                    contentType: string;
                                    bytes: number;
                                    width: number | null;
                                    height: number | null;
                                    durationMs: number | null;
                                    fileName: string;
                                    /** @description 1-based place in the slot */
                                    position: number;
                                    url: string;
                                    thumbnailUrl: string | null;
                                }[];
                                /** @description SHA-256 of what the store had at the last sync or push, in order; null if never read */
                                base: string[] | null;
                                /** @description The store's files (SHA-256, in order) when a sync found the slot changed here and in the store; editing the slot resolves it */
                                conflict: string[] | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.copy": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "from": {
                 *         "store": "playstore",
                 *         "locale": "en-US"
                 *       },
                 *       "to": {
                 *         "store": "playstore",
                 *         "locale": "de-DE"
                 *       }
                 *     }
                 */
                "application/json": {
                    from: {
                        /** @enum {string} */
                        store: "appstore" | "playstore";
                        locale: string;
                        /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                        productPage?: string;
                    };
                    to: {
                        /** @enum {string} */
                        store: "appstore" | "playstore";
                        /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                        productPage?: string;
                        /** @description Target locale; default: the source locale mapped to the target store; "*": every locale of the target store in the project */
                        locale?: string;
                    };
                    /** @description Source slot types (default: every slot with media), each optionally `source:target` */
                    slotTypes?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "slots": [
                     *           {
                     *             "store": "playstore",
                     *             "locale": "de-DE",
                     *             "slotType": "phoneScreenshots",
                     *             "kind": "image",
                     *             "maxItems": 8,
                     *             "state": "modified",
                     *             "items": [
                     *               {
                     *                 "id": "med_4vgyk7s2604nh9nkv4k53q3rcw",
                     *                 "sha256": "152947c868968b5c6d8cb7f4d30f7281b1d0e7911154bd1c231f24bbedeb4924",
                     *                 "md5": "98a97a5c7db817a1f862793fd615fd22",
                     *                 "kind": "image",
                     *                 "contentType": "image/png",
                     *                 "bytes": 4272,
                     *                 "width": 320,
                     *                 "height": 640,
                     *                 "durationMs": null,
                     *                 "fileName": "shot.png",
                     *                 "position": 1,
                     *                 "url": "/api/v1/media/152947c868968b5c6d8cb7f4d30f7281b1d0e7911154bd1c231f24bbedeb4924",
                     *                 "thumbnailUrl": "/api/v1/media/152947c868968b5c6d8cb7f4d30f7281b1d0e7911154bd1c231f24bbedeb4924?thumb=1"
                     *               }
                     *             ],
                     *             "base": null,
                     *             "conflict": null
                     *           }
                     *         ],
                     *         "copied": [
                     *           {
                     *             "from": "phoneScreenshots",
                     *             "to": "phoneScreenshots",
                     *             "items": 1
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            slots: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                slotType: string;
                                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                                productPage?: string;
                                /** @enum {string} */
                                kind: "image" | "video";
                                maxItems: number;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                items: {
                                    id: string;
                                    sha256: string;
                                    /** @description MD5 hex: App Store Connect's sourceFileChecksum */
                                    md5: string;
                                    /** @enum {string} */
                                    kind: "image" | "video";
                                    contentType: string;
                                    bytes: number;
                                    width: number | null;
                                    height: number | null;
                                    durationMs: number | null;
                                    fileName: string;
                                    /** @description 1-based place in the slot */
                                    position: number;
                                    url: string;
                                    thumbnailUrl: string | null;
                                }[];
                                /** @description SHA-256 of what the store had at the last sync or push, in order; null if never read */
                                base: string[] | null;
                                /** @description The store's files (SHA-256, in order) when a sync found the slot changed here and in the store; editing the slot resolves it */
                                conflict: string[] | null;
                            }[];
                            copied: {
                                from: string;
                                to: string;
                                items: number;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.history": {
        parameters: {
            query?: {
                /** @description 1..100 */
                limit?: number;
                offset?: number;
                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                productPage?: string;
            };
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code */
                locale: string;
                /** @description App Store: a screenshot display type (APP_IPHONE_67, ...) or PREVIEW_<previewType> (PREVIEW_IPHONE_67, ...); Google Play: phoneScreenshots, sevenInchScreenshots, tenInchScreenshots, tvScreenshots, wearScreenshots, icon, featureGraphic, tvBanner */
                slotType: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "entries": [],
                     *         "total": 0,
                     *         "limit": 20,
                     *         "offset": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            entries: {
                                id: string;
                                /** @description SHA-256 of the files before, in order */
                                old: string[];
                                new: string[];
                                source: string;
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                    name: string | null;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            }[];
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.revert": {
        parameters: {
            query?: {
                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                productPage?: string;
            };
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code */
                locale: string;
                /** @description App Store: a screenshot display type (APP_IPHONE_67, ...) or PREVIEW_<previewType> (PREVIEW_IPHONE_67, ...); Google Play: phoneScreenshots, sevenInchScreenshots, tenInchScreenshots, tvScreenshots, wearScreenshots, icon, featureGraphic, tvBanner */
                slotType: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "historyId": "mhist_78y3xbysb9c54jjajdfb8etmvr"
                 *     }
                 */
                "application/json": {
                    historyId: string;
                    /**
                     * @default before
                     * @enum {string}
                     */
                    to?: "before" | "after";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "slot": {
                     *           "store": "playstore",
                     *           "locale": "en-US",
                     *           "slotType": "phoneScreenshots",
                     *           "kind": "image",
                     *           "maxItems": 8,
                     *           "state": "unchanged",
                     *           "items": [],
                     *           "base": null,
                     *           "conflict": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            slot: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                slotType: string;
                                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                                productPage?: string;
                                /** @enum {string} */
                                kind: "image" | "video";
                                maxItems: number;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                items: {
                                    id: string;
                                    sha256: string;
                                    /** @description MD5 hex: App Store Connect's sourceFileChecksum */
                                    md5: string;
                                    /** @enum {string} */
                                    kind: "image" | "video";
                                    contentType: string;
                                    bytes: number;
                                    width: number | null;
                                    height: number | null;
                                    durationMs: number | null;
                                    fileName: string;
                                    /** @description 1-based place in the slot */
                                    position: number;
                                    url: string;
                                    thumbnailUrl: string | null;
                                }[];
                                /** @description SHA-256 of what the store had at the last sync or push, in order; null if never read */
                                base: string[] | null;
                                /** @description The store's files (SHA-256, in order) when a sync found the slot changed here and in the store; editing the slot resolves it */
                                conflict: string[] | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.download": {
        parameters: {
            query?: {
                thumb?: "0" | "1";
            };
            header?: never;
            path: {
                sha256: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": Blob;
                };
            };
            /** @description A range of the file */
            206: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": Blob;
                };
            };
            /** @description Not modified */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releases.list": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "appStore": null,
                     *         "playStore": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description App Store versions (iOS), newest first, as the last sync read them; null before */
                            appStore: {
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                readAt: string;
                                versions: {
                                    id: string;
                                    platform: string;
                                    versionString: string;
                                    /** @description App Store Connect's appVersionState */
                                    state: string;
                                    /** @description Its texts (and What’s New) may be written */
                                    editable: boolean;
                                    /** @description The app's first version: it has no What's New */
                                    firstVersion: boolean;
                                    createdDate: string | null;
                                }[];
                            } | null;
                            /** @description Google Play tracks with their releases, as the last sync read them; null before */
                            playStore: {
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                readAt: string;
                                tracks: {
                                    track: string;
                                    releases: {
                                        name: string | null;
                                        versionCodes: string[];
                                        /** @description draft, inProgress, halted or completed */
                                        status: string;
                                        userFraction: number | null;
                                        /** @description language → text, as the store has them */
                                        releaseNotes: {
                                            [key: string]: string;
                                        };
                                    }[];
                                }[];
                            } | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releases.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "versionString": "3.3"
                 *     }
                 */
                "application/json": {
                    /** @description e.g. 2.4.0 */
                    versionString: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "version": {
                     *           "id": "11187e11-e7bc-435f-bbf9-5cc8b43a5437",
                     *           "platform": "IOS",
                     *           "versionString": "3.3",
                     *           "state": "PREPARE_FOR_SUBMISSION",
                     *           "editable": true,
                     *           "createdDate": "2026-11-28T14:55:47.362Z"
                     *         },
                     *         "versions": [
                     *           {
                     *             "id": "11187e11-e7bc-435f-bbf9-5cc8b43a5437",
                     *             "platform": "IOS",
                     *             "versionString": "3.3",
                     *             "state": "PREPARE_FOR_SUBMISSION",
                     *             "editable": true,
                     *             "firstVersion": false,
                     *             "createdDate": "2026-11-28T14:55:47.362Z"
                     *           },
                     *           {
                     *             "id": "7a81f144-ba5f-4237-a09c-a142298f4cb9",
                     *             "platform": "IOS",
                     *             "versionString": "3.1",
                     *             "state": "READY_FOR_DISTRIBUTION",
                     *             "editable": false,
                     *             "firstVersion": false,
                     *             "createdDate": "2026-11-28T14:55:43.092Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            version: {
                                id: string;
                                platform: string;
                                versionString: string;
                                /** @description App Store Connect's appVersionState */
                                state: string;
                                /** @description Its texts (and What’s New) may be written */
                                editable: boolean;
                                createdDate: string | null;
                            };
                            versions: {
                                id: string;
                                platform: string;
                                versionString: string;
                                /** @description App Store Connect's appVersionState */
                                state: string;
                                /** @description Its texts (and What’s New) may be written */
                                editable: boolean;
                                /** @description The app's first version: it has no What's New */
                                firstVersion: boolean;
                                createdDate: string | null;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releaseNotes.list": {
        parameters: {
            query: {
                store: "appstore" | "playstore";
                /** @description App Store: a version string (default: the one being prepared) */
                version?: string;
                /** @description Google Play: one track */
                track?: string;
                /** @description Google Play: the release holding it */
                versionCode?: string;
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "playstore",
                     *         "releases": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {string} */
                            store: "appstore";
                            version: {
                                id: string;
                                platform: string;
                                versionString: string;
                                /** @description App Store Connect's appVersionState */
                                state: string;
                                /** @description Its texts (and What’s New) may be written */
                                editable: boolean;
                                /** @description The app's first version: it has no What's New */
                                firstVersion: boolean;
                                createdDate: string | null;
                            } | null;
                            /** @description What's New per locale (the listing field whatsNew) */
                            notes: {
                                locale: string;
                                value: string | null;
                                base: string | null;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                storeValue?: string | null;
                            }[];
                        } | {
                            /** @enum {string} */
                            store: "playstore";
                            releases: {
                                track: string;
                                /** @description The release's key: its first version code */
                                versionCode: string;
                                versionCodes: string[];
                                name: string | null;
                                status: string;
                                notes: {
                                    locale: string;
                                    value: string | null;
                                    base: string | null;
                                    /** @enum {string} */
                                    state: "unchanged" | "modified" | "conflict";
                                    storeValue?: string | null;
                                }[];
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releaseNotes.updateAppStore": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                versionString: string;
                locale: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Radar"
                 *     }
                 */
                "application/json": {
                    text: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "listing": {
                     *           "store": "appstore",
                     *           "locale": "en-US",
                     *           "state": "modified",
                     *           "fields": {
                     *             "name": {
                     *               "value": "Weather Pro",
                     *               "base": "Weather Pro",
                     *               "state": "unchanged"
                     *             },
                     *             "subtitle": {
                     *               "value": "Rain",
                     *               "base": "Rain",
                     *               "state": "unchanged"
                     *             },
                     *             "description": {
                     *               "value": "Forecasts.",
                     *               "base": "Forecasts.",
                     *               "state": "unchanged"
                     *             },
                     *             "keywords": {
                     *               "value": "rain,radar",
                     *               "base": "rain,radar",
                     *               "state": "unchanged"
                     *             },
                     *             "promotionalText": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "whatsNew": {
                     *               "value": "Radar",
                     *               "base": "Fixes",
                     *               "state": "modified"
                     *             },
                     *             "marketingUrl": {
                     *               "value": null,
                     *               "base": null,
                     *               "state": "unchanged"
                     *             },
                     *             "supportUrl": {
                     *               "value": "https://example.com/support",
                     *               "base": "https://example.com/support",
                     *               "state": "unchanged"
                     *             },
                     *             "privacyPolicyUrl": {
                     *               "value": "https://example.com/privacy",
                     *               "base": "https://example.com/privacy",
                     *               "state": "unchanged"
                     *             }
                     *           },
                     *           "updatedAt": "2026-11-28T14:55:46.941Z"
                     *         },
                     *         "warnings": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releaseNotes.history": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                projectId: string;
                track: string;
                versionCode: string;
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "entries": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            entries: {
                                id: string;
                                old: string | null;
                                new: string | null;
                                /** @description edit, revert, copy, import or sync */
                                source: string;
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                    name: string | null;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releaseNotes.revert": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "historyId": "rnh_3gr2t3s37bh6q3wr6g11805qr0"
                 *     }
                 */
                "application/json": {
                    historyId: string;
                    /**
                     * @default before
                     * @enum {string}
                     */
                    to?: "before" | "after";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "track": "production",
                     *         "versionCode": "7",
                     *         "locale": "en-US",
                     *         "value": null,
                     *         "base": null,
                     *         "state": "unchanged"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            track: string;
                            versionCode: string;
                            locale: string;
                            value: string | null;
                            base: string | null;
                            /** @enum {string} */
                            state: "unchanged" | "modified" | "conflict";
                            storeValue?: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releaseNotes.copy": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "from": {
                 *         "store": "playstore",
                 *         "track": "production",
                 *         "versionCode": "7"
                 *       },
                 *       "to": {
                 *         "track": "production",
                 *         "versionCode": "7"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description appstore: What's New of the version being prepared */
                    from: {
                        /** @enum {string} */
                        store: "appstore" | "playstore";
                        track?: string;
                        versionCode?: string;
                    };
                    /** @description The Google Play release (any of its version codes) */
                    to: {
                        track: string;
                        versionCode: string;
                    };
                    /** @description Play languages; all when omitted */
                    locales?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "copied": [
                     *           {
                     *             "from": "en-US",
                     *             "to": "en-US"
                     *           }
                     *         ],
                     *         "notes": [
                     *           {
                     *             "track": "production",
                     *             "versionCode": "7",
                     *             "locale": "en-US",
                     *             "value": "Radar",
                     *             "base": null,
                     *             "state": "modified"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            copied: {
                                from: string;
                                to: string;
                            }[];
                            notes: {
                                track: string;
                                versionCode: string;
                                locale: string;
                                value: string | null;
                                base: string | null;
                                /** @enum {string} */
                                state: "unchanged" | "modified" | "conflict";
                                storeValue?: string | null;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releaseNotes.updatePlay": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                track: string;
                versionCode: string;
                locale: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "text": "Radar"
                 *     }
                 */
                "application/json": {
                    text: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "track": "production",
                     *         "versionCode": "7",
                     *         "locale": "en-US",
                     *         "value": "Radar",
                     *         "base": null,
                     *         "state": "modified"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            track: string;
                            versionCode: string;
                            locale: string;
                            value: string | null;
                            base: string | null;
                            /** @enum {string} */
                            state: "unchanged" | "modified" | "conflict";
                            storeValue?: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "products.list": {
        parameters: {
            query?: {
                store?: "appstore" | "playstore";
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "products": [],
                     *         "limits": {
                     *           "appstore": {
                     *             "inAppPurchase": {
                     *               "name": {
                     *                 "label": "Display name",
                     *                 "max": 35,
                     *                 "required": true,
                     *                 "confirmed": false,
                     *                 "min": 2
                     *               },
                     *               "description": {
                     *                 "label": "Description",
                     *                 "max": 55,
                     *                 "required": false,
                     *                 "confirmed": false
                     *               }
                     *             },
                     *             "subscription": {
                     *               "name": {
                     *                 "label": "Display name",
                     *                 "max": 35,
                     *                 "required": true,
                     *                 "confirmed": false,
                     *                 "min": 2
                     *               },
                     *               "description": {
                     *                 "label": "Description",
                     *                 "max": 55,
                     *                 "required": false,
                     *                 "confirmed": false
                     *               }
                     *             },
                     *             "subscriptionGroup": {
                     *               "name": {
                     *                 "label": "Group name",
                     *                 "max": 75,
                     *                 "required": true,
                     *                 "confirmed": false,
                     *                 "plainCharacters": true
                     *               },
                     *               "customAppName": {
                     *                 "label": "Custom app name",
                     *                 "max": 30,
                     *                 "required": false,
                     *                 "confirmed": false
                     *               }
                     *             },
                     *             "customProductPage": {
                     *               "promotionalText": {
                     *                 "label": "Promotional text",
                     *                 "max": 170,
                     *                 "required": false,
                     *                 "confirmed": true
                     *               }
                     *             },
                     *             "appEvent": {
                     *               "name": {
                     *                 "label": "Event name",
                     *                 "max": 30,
                     *                 "required": false,
                     *                 "confirmed": false
                     *               },
                     *               "shortDescription": {
                     *                 "label": "Short description",
                     *                 "max": 50,
                     *                 "required": false,
                     *                 "confirmed": false
                     *               },
                     *               "longDescription": {
                     *                 "label": "Long description",
                     *                 "max": 120,
                     *                 "required": false,
                     *                 "confirmed": false
                     *               }
                     *             }
                     *           },
                     *           "playstore": {
                     *             "inAppProduct": {
                     *               "title": {
                     *                 "label": "Title",
                     *                 "max": 55,
                     *                 "required": true,
                     *                 "confirmed": true
                     *               },
                     *               "description": {
                     *                 "label": "Description",
                     *                 "max": 200,
                     *                 "required": false,
                     *                 "confirmed": true
                     *               }
                     *             },
                     *             "subscription": {
                     *               "title": {
                     *                 "label": "Title",
                     *                 "max": 55,
                     *                 "required": true,
                     *                 "confirmed": false
                     *               },
                     *               "description": {
                     *                 "label": "Description",
                     *                 "max": 80,
                     *                 "required": false,
                     *                 "confirmed": true
                     *               },
                     *               "benefits": {
                     *                 "label": "Benefits",
                     *                 "max": 40,
                     *                 "required": false,
                     *                 "confirmed": false,
                     *                 "list": {
                     *                   "maxItems": 4
                     *                 }
                     *               }
                     *             }
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            products: {
                                store: string;
                                /** @description appstore: inAppPurchase, subscription, subscriptionGroup; playstore: inAppProduct, subscription */
                                kind: string;
                                /** @description The store product id (App Store groups: group:<reference name>) */
                                productId: string;
                                referenceName: string | null;
                                state: string | null;
                                /** @description locale → field → working copy */
                                locales: {
                                    [key: string]: {
                                        [key: string]: (string | string[]) | null;
                                    };
                                };
                                /** @description locale → whether its texts are as the store has them, changed here, or in conflict */
                                states: {
                                    [key: string]: "unchanged" | "modified" | "conflict";
                                };
                                linkedProductId: string | null;
                                /** @description Texts that differ from the store (or are in conflict) */
                                pending: number;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                readAt: string;
                            }[];
                            /** @description store → kind → field → limits (APPMETA_PRODUCT_LIMITS changes the unconfirmed ones) */
                            limits: {
                                [key: string]: {
                                    [key: string]: {
                                        [key: string]: {
                                            label: string;
                                            max: number;
                                            min?: number;
                                            required: boolean;
                                            list?: {
                                                maxItems: number;
                                            };
                                            plainCharacters?: boolean;
                                            /** @description Whether a trustworthy source gives the number */
                                            confirmed: boolean;
                                        };
                                    };
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "products.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                productId: string;
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "playstore",
                     *         "kind": "inAppProduct",
                     *         "productId": "coins_100",
                     *         "referenceName": null,
                     *         "state": "active",
                     *         "locale": "en-US",
                     *         "fields": {
                     *           "title": {
                     *             "value": "100 coins",
                     *             "base": "100 coins",
                     *             "state": "unchanged",
                     *             "limit": 55,
                     *             "required": true
                     *           },
                     *           "description": {
                     *             "value": "A bag of coins",
                     *             "base": "A bag of coins",
                     *             "state": "unchanged",
                     *             "limit": 200,
                     *             "required": false
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            store: string;
                            kind: string;
                            productId: string;
                            referenceName: string | null;
                            state: string | null;
                            locale: string;
                            fields: {
                                [key: string]: {
                                    value: (string | string[]) | null;
                                    base: (string | string[]) | null;
                                    /** @enum {string} */
                                    state: "unchanged" | "modified" | "conflict";
                                    storeValue?: (string | string[]) | null;
                                    /** @description Characters (per item for a list) */
                                    limit: number;
                                    maxItems?: number;
                                    required: boolean;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "products.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                productId: string;
                locale: string;
            };
            cookie?: never;
        };
        /** @description field → new text; null clears an optional one; benefits as a list of up to 4 items */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "A heap of coins"
                 *     }
                 */
                "application/json": {
                    [key: string]: (string | string[]) | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "playstore",
                     *         "kind": "inAppProduct",
                     *         "productId": "coins_100",
                     *         "referenceName": null,
                     *         "state": "active",
                     *         "locale": "en-US",
                     *         "fields": {
                     *           "title": {
                     *             "value": "A heap of coins",
                     *             "base": "100 coins",
                     *             "state": "modified",
                     *             "limit": 55,
                     *             "required": true
                     *           },
                     *           "description": {
                     *             "value": "A bag of coins",
                     *             "base": "A bag of coins",
                     *             "state": "unchanged",
                     *             "limit": 200,
                     *             "required": false
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            store: string;
                            kind: string;
                            productId: string;
                            referenceName: string | null;
                            state: string | null;
                            locale: string;
                            fields: {
                                [key: string]: {
                                    value: (string | string[]) | null;
                                    base: (string | string[]) | null;
                                    /** @enum {string} */
                                    state: "unchanged" | "modified" | "conflict";
                                    storeValue?: (string | string[]) | null;
                                    /** @description Characters (per item for a list) */
                                    limit: number;
                                    maxItems?: number;
                                    required: boolean;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "products.history": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                productId: string;
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "entries": [
                     *           {
                     *             "id": "pth_x36sj8j06fvb5yjfwj8cyyqj34",
                     *             "field": "title",
                     *             "old": null,
                     *             "new": "100 coins",
                     *             "source": "sync",
                     *             "actor": {
                     *               "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *               "operator": null,
                     *               "name": "Google Play"
                     *             },
                     *             "createdAt": "2026-11-28T14:55:43.785Z"
                     *           },
                     *           {
                     *             "id": "pth_jmvabyvdjjb91vrgkfgn5cjk4m",
                     *             "field": "description",
                     *             "old": null,
                     *             "new": "A bag of coins",
                     *             "source": "sync",
                     *             "actor": {
                     *               "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *               "operator": null,
                     *               "name": "Google Play"
                     *             },
                     *             "createdAt": "2026-11-28T14:55:43.785Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            entries: {
                                id: string;
                                field: string;
                                old: (string | string[]) | null;
                                new: (string | string[]) | null;
                                /** @description edit, revert, sync */
                                source: string;
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                    name: string | null;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "products.revert": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "historyId": "pth_qkqamwdabs6aww9nfd1ztydze4"
                 *     }
                 */
                "application/json": {
                    historyId: string;
                    /**
                     * @default before
                     * @enum {string}
                     */
                    to?: "before" | "after";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "playstore",
                     *         "kind": "inAppProduct",
                     *         "productId": "coins_100",
                     *         "referenceName": null,
                     *         "state": "active",
                     *         "locale": "en-US",
                     *         "fields": {
                     *           "title": {
                     *             "value": "100 coins",
                     *             "base": "100 coins",
                     *             "state": "unchanged",
                     *             "limit": 55,
                     *             "required": true
                     *           },
                     *           "description": {
                     *             "value": "A bag of coins",
                     *             "base": "A bag of coins",
                     *             "state": "unchanged",
                     *             "limit": 200,
                     *             "required": false
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            store: string;
                            kind: string;
                            productId: string;
                            referenceName: string | null;
                            state: string | null;
                            locale: string;
                            fields: {
                                [key: string]: {
                                    value: (string | string[]) | null;
                                    base: (string | string[]) | null;
                                    /** @enum {string} */
                                    state: "unchanged" | "modified" | "conflict";
                                    storeValue?: (string | string[]) | null;
                                    /** @description Characters (per item for a list) */
                                    limit: number;
                                    maxItems?: number;
                                    required: boolean;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "products.copy": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "from": {
                 *         "store": "appstore",
                 *         "productId": "coins_100"
                 *       }
                 *     }
                 */
                "application/json": {
                    from: {
                        /** @enum {string} */
                        store: "appstore" | "playstore";
                        productId: string;
                    };
                    to?: {
                        /** @description The counterpart's product id in the other store, when it differs */
                        productId?: string;
                    };
                    /** @description Target locales, in the target store's codes; all by default */
                    locales?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "playstore",
                     *         "productId": "coins_100",
                     *         "copied": [
                     *           {
                     *             "from": "en-US",
                     *             "to": "en-US"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            store: string;
                            productId: string;
                            copied: {
                                from: string;
                                to: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "products.link": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                productId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "productId": "coins_100"
                 *     }
                 */
                "application/json": {
                    productId: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "appstore",
                     *         "productId": "coins_100",
                     *         "linkedProductId": "coins_100"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            store: string;
                            productId: string;
                            linkedProductId: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "productPages.list": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "pages": [],
                     *         "limits": {
                     *           "promotionalText": {
                     *             "label": "Promotional text",
                     *             "max": 170,
                     *             "required": false,
                     *             "confirmed": true
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            pages: {
                                /** @description The store's id of the page */
                                pageId: string;
                                /** @description Its reference name */
                                name: string;
                                visible: boolean;
                                url: string | null;
                                version: {
                                    version: string | null;
                                    state: string | null;
                                    /** @description Whether App Store Connect takes changes to its texts now */
                                    editable: boolean;
                                    reason: string | null;
                                    deepLink: string | null;
                                };
                                /** @description locale → field → working copy */
                                locales: {
                                    [key: string]: {
                                        [key: string]: string | null;
                                    };
                                };
                                /** @description locale → whether its texts are as the store has them, changed here, or in conflict */
                                states: {
                                    [key: string]: "unchanged" | "modified" | "conflict";
                                };
                                /** @description Texts that differ from the store (or are in conflict) */
                                pending: number;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                readAt: string;
                                preview: {
                                    locale: string;
                                    slotType: string;
                                    /** @description URLs of its first screenshots */
                                    thumbnails: string[];
                                } | null;
                            }[];
                            limits?: {
                                [key: string]: {
                                    label: string;
                                    max: number;
                                    min?: number;
                                    required: boolean;
                                    list?: {
                                        maxItems: number;
                                    };
                                    plainCharacters?: boolean;
                                    /** @description Whether a trustworthy source gives the number */
                                    confirmed: boolean;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "productPages.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                pageId: string;
                /** @description App Store Connect's locale code */
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "pageId": "roles-page",
                     *         "locale": "en-US",
                     *         "state": "PREPARE_FOR_SUBMISSION",
                     *         "editable": true,
                     *         "reason": null,
                     *         "fields": {
                     *           "promotionalText": {
                     *             "value": "Page text",
                     *             "base": "Page text",
                     *             "state": "unchanged",
                     *             "limit": 170
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            pageId: string;
                            locale: string;
                            state: string | null;
                            /** @description Whether App Store Connect takes changes to its texts now */
                            editable: boolean;
                            reason: string | null;
                            fields: {
                                [key: string]: {
                                    value: string | null;
                                    base: string | null;
                                    /** @enum {string} */
                                    state: "unchanged" | "modified" | "conflict";
                                    storeValue?: string | null;
                                    limit: number;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "productPages.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                pageId: string;
                /** @description App Store Connect's locale code */
                locale: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "promotionalText": "Storm season"
                 *     }
                 */
                "application/json": {
                    promotionalText?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "pageId": "roles-page",
                     *         "locale": "en-US",
                     *         "state": "PREPARE_FOR_SUBMISSION",
                     *         "editable": true,
                     *         "reason": null,
                     *         "fields": {
                     *           "promotionalText": {
                     *             "value": "Storm season",
                     *             "base": "Page text",
                     *             "state": "modified",
                     *             "limit": 170
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            pageId: string;
                            locale: string;
                            state: string | null;
                            /** @description Whether App Store Connect takes changes to its texts now */
                            editable: boolean;
                            reason: string | null;
                            fields: {
                                [key: string]: {
                                    value: string | null;
                                    base: string | null;
                                    /** @enum {string} */
                                    state: "unchanged" | "modified" | "conflict";
                                    storeValue?: string | null;
                                    limit: number;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "productPages.copyDefault": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
                pageId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "locales": [
                 *         "en-US"
                 *       ],
                 *       "parts": [
                 *         "media"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description App Store locales; default: every App Store listing of the project */
                    locales?: string[];
                    /** @description What to copy: the promotional text, the screenshots and previews, or both (default) */
                    parts?: ("texts" | "media")[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "pageId": "roles-page",
                     *         "locales": [
                     *           "en-US"
                     *         ],
                     *         "copied": {
                     *           "texts": [],
                     *           "mediaSlots": 0,
                     *           "mediaItems": 0
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            pageId: string;
                            locales: string[];
                            copied: {
                                /** @description Locales whose promotional text was copied */
                                texts: string[];
                                mediaSlots: number;
                                mediaItems: number;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "appEvents.list": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "events": [],
                     *         "limits": {
                     *           "name": {
                     *             "label": "Event name",
                     *             "max": 30,
                     *             "required": false,
                     *             "confirmed": false
                     *           },
                     *           "shortDescription": {
                     *             "label": "Short description",
                     *             "max": 50,
                     *             "required": false,
                     *             "confirmed": false
                     *           },
                     *           "longDescription": {
                     *             "label": "Long description",
                     *             "max": 120,
                     *             "required": false,
                     *             "confirmed": false
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            events: {
                                /** @description The store's id of the event */
                                eventId: string;
                                referenceName: string;
                                badge: string | null;
                                purpose: string | null;
                                priority: string | null;
                                primaryLocale: string | null;
                                schedules: {
                                    territories: string[];
                                    publishStart: string | null;
                                    eventStart: string | null;
                                    eventEnd: string | null;
                                }[];
                                state: string | null;
                                /** @description Whether App Store Connect takes changes to its texts now */
                                editable: boolean;
                                reason: string | null;
                                /** @description locale → field → working copy */
                                locales: {
                                    [key: string]: {
                                        [key: string]: string | null;
                                    };
                                };
                                /** @description locale → whether its texts are as the store has them, changed here, or in conflict */
                                states: {
                                    [key: string]: "unchanged" | "modified" | "conflict";
                                };
                                /** @description Texts that differ from the store (or are in conflict) */
                                pending: number;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                readAt: string;
                            }[];
                            limits?: {
                                [key: string]: {
                                    label: string;
                                    max: number;
                                    min?: number;
                                    required: boolean;
                                    list?: {
                                        maxItems: number;
                                    };
                                    plainCharacters?: boolean;
                                    /** @description Whether a trustworthy source gives the number */
                                    confirmed: boolean;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "appEvents.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                eventId: string;
                /** @description App Store Connect's locale code */
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "eventId": "roles-event",
                     *         "locale": "en-US",
                     *         "state": "DRAFT",
                     *         "editable": true,
                     *         "reason": null,
                     *         "fields": {
                     *           "name": {
                     *             "value": "Roles week",
                     *             "base": "Roles week",
                     *             "state": "unchanged",
                     *             "limit": 30
                     *           },
                     *           "shortDescription": {
                     *             "value": null,
                     *             "base": null,
                     *             "state": "unchanged",
                     *             "limit": 50
                     *           },
                     *           "longDescription": {
                     *             "value": null,
                     *             "base": null,
                     *             "state": "unchanged",
                     *             "limit": 120
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            eventId: string;
                            locale: string;
                            state: string | null;
                            /** @description Whether App Store Connect takes changes to its texts now */
                            editable: boolean;
                            reason: string | null;
                            fields: {
                                [key: string]: {
                                    value: string | null;
                                    base: string | null;
                                    /** @enum {string} */
                                    state: "unchanged" | "modified" | "conflict";
                                    storeValue?: string | null;
                                    limit: number;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "appEvents.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                eventId: string;
                /** @description App Store Connect's locale code */
                locale: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Storm week"
                 *     }
                 */
                "application/json": {
                    name?: string | null;
                    shortDescription?: string | null;
                    longDescription?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "eventId": "roles-event",
                     *         "locale": "en-US",
                     *         "state": "DRAFT",
                     *         "editable": true,
                     *         "reason": null,
                     *         "fields": {
                     *           "name": {
                     *             "value": "Storm week",
                     *             "base": "Roles week",
                     *             "state": "modified",
                     *             "limit": 30
                     *           },
                     *           "shortDescription": {
                     *             "value": null,
                     *             "base": null,
                     *             "state": "unchanged",
                     *             "limit": 50
                     *           },
                     *           "longDescription": {
                     *             "value": null,
                     *             "base": null,
                     *             "state": "unchanged",
                     *             "limit": 120
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            eventId: string;
                            locale: string;
                            state: string | null;
                            /** @description Whether App Store Connect takes changes to its texts now */
                            editable: boolean;
                            reason: string | null;
                            fields: {
                                [key: string]: {
                                    value: string | null;
                                    base: string | null;
                                    /** @enum {string} */
                                    state: "unchanged" | "modified" | "conflict";
                                    storeValue?: string | null;
                                    limit: number;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "details.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "appstore",
                     *         "details": {
                     *           "copyright": null,
                     *           "primaryCategory": null,
                     *           "secondaryCategory": null,
                     *           "review": {
                     *             "contactFirstName": null,
                     *             "contactLastName": null,
                     *             "contactPhone": null,
                     *             "contactEmail": null,
                     *             "demoAccountName": null,
                     *             "demoAccountPassword": {
                     *               "set": false
                     *             },
                     *             "demoAccountRequired": null,
                     *             "notes": null
                     *           }
                     *         },
                     *         "states": {
                     *           "copyright": "unchanged",
                     *           "primaryCategory": "unchanged",
                     *           "secondaryCategory": "unchanged",
                     *           "review.contactFirstName": "unchanged",
                     *           "review.contactLastName": "unchanged",
                     *           "review.contactPhone": "unchanged",
                     *           "review.contactEmail": "unchanged",
                     *           "review.demoAccountName": "unchanged",
                     *           "review.demoAccountPassword": "unchanged",
                     *           "review.demoAccountRequired": "unchanged",
                     *           "review.notes": "unchanged"
                     *         },
                     *         "pending": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            store: string;
                            /** @description App Store: copyright, primaryCategory, secondaryCategory, review{…}; Google Play: contact and default language */
                            details: {
                                [key: string]: ((string | boolean | {
                                    set: boolean;
                                }) | null) | {
                                    [key: string]: (string | boolean | {
                                        set: boolean;
                                    }) | null;
                                };
                            };
                            /** @description detail (review.<name>) → its state against the store */
                            states: {
                                [key: string]: "unchanged" | "modified" | "conflict";
                            };
                            /** @description The store's value of a detail in conflict */
                            storeValues?: {
                                [key: string]: (string | boolean | {
                                    set: boolean;
                                }) | null;
                            };
                            pending: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "details.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "copyright": "2026 Example Inc."
                 *     }
                 */
                "application/json": {
                    copyright?: string | null;
                    primaryCategory?: string | null;
                    secondaryCategory?: string | null;
                    review?: {
                        contactFirstName?: string | null;
                        contactLastName?: string | null;
                        contactPhone?: string | null;
                        contactEmail?: string | null;
                        demoAccountName?: string | null;
                        demoAccountPassword?: string | null;
                        demoAccountRequired?: boolean | null;
                        notes?: string | null;
                    };
                    contactEmail?: string | null;
                    contactPhone?: string | null;
                    contactWebsite?: string | null;
                    defaultLanguage?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "appstore",
                     *         "details": {
                     *           "copyright": "2026 Example Inc.",
                     *           "primaryCategory": null,
                     *           "secondaryCategory": null,
                     *           "review": {
                     *             "contactFirstName": null,
                     *             "contactLastName": null,
                     *             "contactPhone": null,
                     *             "contactEmail": null,
                     *             "demoAccountName": null,
                     *             "demoAccountPassword": {
                     *               "set": false
                     *             },
                     *             "demoAccountRequired": null,
                     *             "notes": null
                     *           }
                     *         },
                     *         "states": {
                     *           "copyright": "modified",
                     *           "primaryCategory": "unchanged",
                     *           "secondaryCategory": "unchanged",
                     *           "review.contactFirstName": "unchanged",
                     *           "review.contactLastName": "unchanged",
                     *           "review.contactPhone": "unchanged",
                     *           "review.contactEmail": "unchanged",
                     *           "review.demoAccountName": "unchanged",
                     *           "review.demoAccountPassword": "unchanged",
                     *           "review.demoAccountRequired": "unchanged",
                     *           "review.notes": "unchanged"
                     *         },
                     *         "pending": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            store: string;
                            /** @description App Store: copyright, primaryCategory, secondaryCategory, review{…}; Google Play: contact and default language */
                            details: {
                                [key: string]: ((string | boolean | {
                                    set: boolean;
                                }) | null) | {
                                    [key: string]: (string | boolean | {
                                        set: boolean;
                                    }) | null;
                                };
                            };
                            /** @description detail (review.<name>) → its state against the store */
                            states: {
                                [key: string]: "unchanged" | "modified" | "conflict";
                            };
                            /** @description The store's value of a detail in conflict */
                            storeValues?: {
                                [key: string]: (string | boolean | {
                                    set: boolean;
                                }) | null;
                            };
                            pending: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "details.history": {
        parameters: {
            query?: {
                /** @description 1..100 */
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "entries": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            entries: {
                                id: string;
                                field: string;
                                old: string | null;
                                new: string | null;
                                source: string;
                                actor: {
                                    memberId: string | null;
                                    operator: string | null;
                                    name: string | null;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releaseControls.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "appStore": {
                     *           "id": "11187e11-e7bc-435f-bbf9-5cc8b43a5437",
                     *           "versionString": "3.3",
                     *           "state": "PREPARE_FOR_SUBMISSION",
                     *           "releaseType": "AFTER_APPROVAL",
                     *           "earliestReleaseDate": null,
                     *           "phasedRelease": null
                     *         },
                     *         "playStore": [
                     *           {
                     *             "track": "production",
                     *             "name": "7 (1.7)",
                     *             "versionCodes": [
                     *               "7"
                     *             ],
                     *             "status": "completed",
                     *             "userFraction": null
                     *           },
                     *           {
                     *             "track": "beta",
                     *             "name": "30 (3.0)",
                     *             "versionCodes": [
                     *               "30"
                     *             ],
                     *             "status": "inProgress",
                     *             "userFraction": 0.5
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            appStore: {
                                id: string;
                                versionString: string;
                                state: string;
                                releaseType: string | null;
                                earliestReleaseDate: string | null;
                                phasedRelease: {
                                    id: string;
                                    /** @description INACTIVE, ACTIVE, PAUSED or COMPLETE */
                                    state: string;
                                    startDate: string | null;
                                    currentDayNumber: number | null;
                                    totalPauseDuration: number | null;
                                } | null;
                            } | null;
                            playStore: {
                                track: string;
                                name: string | null;
                                versionCodes: string[];
                                status: string;
                                userFraction: number | null;
                            }[] | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "releaseControls.apply": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "store": "playstore",
                 *       "action": "setRolloutFraction",
                 *       "track": "beta",
                 *       "fraction": 0.5
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    store: "appstore" | "playstore";
                    /**
                     * @description App Store: setReleaseType, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease. Google Play: setRolloutFraction, haltRollout, resumeRollout, completeRollout.
                     * @enum {string}
                     */
                    action: "setReleaseType" | "enablePhasedRelease" | "pausePhasedRelease" | "resumePhasedRelease" | "completePhasedRelease" | "setRolloutFraction" | "haltRollout" | "resumeRollout" | "completeRollout";
                    /** @enum {string} */
                    releaseType?: "MANUAL" | "AFTER_APPROVAL" | "SCHEDULED";
                    /** @description With SCHEDULED: a time on the hour with an offset */
                    earliestReleaseDate?: string;
                    /** @description Google Play: production, beta, … */
                    track?: string;
                    /** @description setRolloutFraction: the share of users, 0 < f < 1 */
                    fraction?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "action": {
                     *           "store": "playstore",
                     *           "action": "setRolloutFraction",
                     *           "track": "beta",
                     *           "fraction": 0.5
                     *         },
                     *         "controls": {
                     *           "appStore": null,
                     *           "playStore": [
                     *             {
                     *               "track": "beta",
                     *               "name": "30 (3.0)",
                     *               "versionCodes": [
                     *                 "30"
                     *               ],
                     *               "status": "inProgress",
                     *               "userFraction": 0.5
                     *             }
                     *           ]
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            action: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                /**
                                 * @description App Store: setReleaseType, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease. Google Play: setRolloutFraction, haltRollout, resumeRollout, completeRollout.
                                 * @enum {string}
                                 */
                                action: "setReleaseType" | "enablePhasedRelease" | "pausePhasedRelease" | "resumePhasedRelease" | "completePhasedRelease" | "setRolloutFraction" | "haltRollout" | "resumeRollout" | "completeRollout";
                                /** @enum {string} */
                                releaseType?: "MANUAL" | "AFTER_APPROVAL" | "SCHEDULED";
                                /** @description With SCHEDULED: a time on the hour with an offset */
                                earliestReleaseDate?: string;
                                /** @description Google Play: production, beta, … */
                                track?: string;
                                /** @description setRolloutFraction: the share of users, 0 < f < 1 */
                                fraction?: number;
                            };
                            controls: {
                                appStore: {
                                    id: string;
                                    versionString: string;
                                    state: string;
                                    releaseType: string | null;
                                    earliestReleaseDate: string | null;
                                    phasedRelease: {
                                        id: string;
                                        /** @description INACTIVE, ACTIVE, PAUSED or COMPLETE */
                                        state: string;
                                        startDate: string | null;
                                        currentDayNumber: number | null;
                                        totalPauseDuration: number | null;
                                    } | null;
                                } | null;
                                playStore: {
                                    track: string;
                                    name: string | null;
                                    versionCodes: string[];
                                    status: string;
                                    userFraction: number | null;
                                }[] | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "schedules.list": {
        parameters: {
            query?: {
                /** @description 1..100 */
                limit?: number;
                offset?: number;
                /** @description at ≥ from */
                from?: string;
                /** @description at < to */
                to?: string;
                /** @description Comma-separated statuses */
                status?: string;
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "schedules": [],
                     *         "total": 0,
                     *         "limit": 20,
                     *         "offset": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            schedules: {
                                id: string;
                                projectId: string;
                                /** @enum {string} */
                                kind: "push" | "release";
                                /**
                                 * @description scheduled → running → completed, or held (not pushed: the reason says why) or failed; a campaign is live between its push and its revert (reverting → completed); cancelled
                                 * @enum {string}
                                 */
                                status: "scheduled" | "running" | "live" | "reverting" | "completed" | "held" | "failed" | "cancelled";
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                at: string;
                                revertAt: string | null;
                                timeZone: string | null;
                                atLocal: string | null;
                                revertAtLocal: string | null;
                                note: string | null;
                                hash: string | null;
                                release: {
                                    /** @enum {string} */
                                    store: "appstore" | "playstore";
                                    /**
                                     * @description App Store: setReleaseType, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease. Google Play: setRolloutFraction, haltRollout, resumeRollout, completeRollout.
                                     * @enum {string}
                                     */
                                    action: "setReleaseType" | "enablePhasedRelease" | "pausePhasedRelease" | "resumePhasedRelease" | "completePhasedRelease" | "setRolloutFraction" | "haltRollout" | "resumeRollout" | "completeRollout";
                                    /** @enum {string} */
                                    releaseType?: "MANUAL" | "AFTER_APPROVAL" | "SCHEDULED";
                                    /** @description With SCHEDULED: a time on the hour with an offset */
                                    earliestReleaseDate?: string;
                                    /** @description Google Play: production, beta, … */
                                    track?: string;
                                    /** @description setRolloutFraction: the share of users, 0 < f < 1 */
                                    fraction?: number;
                                } | null;
                                summary: {
                                    changeCount: number;
                                    mediaChangeCount: number;
                                    releaseNoteChangeCount: number;
                                    productChangeCount: number;
                                    detailChangeCount: number;
                                    fields: {
                                        store: string;
                                        locale: string;
                                        field: string;
                                        new: string | null;
                                    }[];
                                } | null;
                                createdBy: {
                                    memberId: string | null;
                                    operator: string | null;
                                };
                                operationId: string | null;
                                revertOperationId: string | null;
                                reason: string | null;
                                outcome: {
                                    [key: string]: unknown;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            }[];
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "schedules.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "at": "2026-11-28T15:55:43.200Z",
                 *       "hash": "dabc3e881bba380981293b2eb8e93e35198b2f56802fff596201d18d5f300be9"
                 *     }
                 */
                "application/json": {
                    /** @description When: 2027-03-28T09:00:00+02:00, or a wall-clock time 2027-03-28T09:00 with timeZone */
                    at: string;
                    /** @description IANA zone, e.g. Europe/Berlin */
                    timeZone?: string;
                    /** @description The diff hash to push (GET .../diff) */
                    hash?: string;
                    release?: {
                        /** @enum {string} */
                        store: "appstore" | "playstore";
                        /**
                         * @description App Store: setReleaseType, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease. Google Play: setRolloutFraction, haltRollout, resumeRollout, completeRollout.
                         * @enum {string}
                         */
                        action: "setReleaseType" | "enablePhasedRelease" | "pausePhasedRelease" | "resumePhasedRelease" | "completePhasedRelease" | "setRolloutFraction" | "haltRollout" | "resumeRollout" | "completeRollout";
                        /** @enum {string} */
                        releaseType?: "MANUAL" | "AFTER_APPROVAL" | "SCHEDULED";
                        /** @description With SCHEDULED: a time on the hour with an offset */
                        earliestReleaseDate?: string;
                        /** @description Google Play: production, beta, … */
                        track?: string;
                        /** @description setRolloutFraction: the share of users, 0 < f < 1 */
                        fraction?: number;
                    };
                    /** @description A campaign: when the texts it pushed are put back */
                    revertAt?: string;
                    note?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "schedule": {
                     *           "id": "sch_qseg8444jdqbd3bhexpm0ae2fr",
                     *           "projectId": "proj_kbz8m58s77nt6gd09x1r8460em",
                     *           "kind": "push",
                     *           "status": "scheduled",
                     *           "at": "2026-11-28T15:55:43.200Z",
                     *           "revertAt": null,
                     *           "timeZone": null,
                     *           "atLocal": null,
                     *           "revertAtLocal": null,
                     *           "note": null,
                     *           "hash": "dabc3e881bba380981293b2eb8e93e35198b2f56802fff596201d18d5f300be9",
                     *           "release": null,
                     *           "summary": {
                     *             "changeCount": 3,
                     *             "mediaChangeCount": 0,
                     *             "releaseNoteChangeCount": 0,
                     *             "productChangeCount": 0,
                     *             "detailChangeCount": 0,
                     *             "fields": [
                     *               {
                     *                 "store": "appstore",
                     *                 "locale": "en-US",
                     *                 "field": "name",
                     *                 "new": "Weather Pro"
                     *               },
                     *               {
                     *                 "store": "appstore",
                     *                 "locale": "en-US",
                     *                 "field": "subtitle",
                     *                 "new": "Rain"
                     *               }
                     *             ]
                     *           },
                     *           "createdBy": {
                     *             "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "operator": null
                     *           },
                     *           "operationId": null,
                     *           "revertOperationId": null,
                     *           "reason": null,
                     *           "outcome": null,
                     *           "createdAt": "2026-11-28T14:55:43.202Z",
                     *           "updatedAt": "2026-11-28T14:55:43.202Z"
                     *         },
                     *         "approval": {
                     *           "required": false,
                     *           "approved": false
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            schedule: {
                                id: string;
                                projectId: string;
                                /** @enum {string} */
                                kind: "push" | "release";
                                /**
                                 * @description scheduled → running → completed, or held (not pushed: the reason says why) or failed; a campaign is live between its push and its revert (reverting → completed); cancelled
                                 * @enum {string}
                                 */
                                status: "scheduled" | "running" | "live" | "reverting" | "completed" | "held" | "failed" | "cancelled";
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                at: string;
                                revertAt: string | null;
                                timeZone: string | null;
                                atLocal: string | null;
                                revertAtLocal: string | null;
                                note: string | null;
                                hash: string | null;
                                release: {
                                    /** @enum {string} */
                                    store: "appstore" | "playstore";
                                    /**
                                     * @description App Store: setReleaseType, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease. Google Play: setRolloutFraction, haltRollout, resumeRollout, completeRollout.
                                     * @enum {string}
                                     */
                                    action: "setReleaseType" | "enablePhasedRelease" | "pausePhasedRelease" | "resumePhasedRelease" | "completePhasedRelease" | "setRolloutFraction" | "haltRollout" | "resumeRollout" | "completeRollout";
                                    /** @enum {string} */
                                    releaseType?: "MANUAL" | "AFTER_APPROVAL" | "SCHEDULED";
                                    /** @description With SCHEDULED: a time on the hour with an offset */
                                    earliestReleaseDate?: string;
                                    /** @description Google Play: production, beta, … */
                                    track?: string;
                                    /** @description setRolloutFraction: the share of users, 0 < f < 1 */
                                    fraction?: number;
                                } | null;
                                summary: {
                                    changeCount: number;
                                    mediaChangeCount: number;
                                    releaseNoteChangeCount: number;
                                    productChangeCount: number;
                                    detailChangeCount: number;
                                    fields: {
                                        store: string;
                                        locale: string;
                                        field: string;
                                        new: string | null;
                                    }[];
                                } | null;
                                createdBy: {
                                    memberId: string | null;
                                    operator: string | null;
                                };
                                operationId: string | null;
                                revertOperationId: string | null;
                                reason: string | null;
                                outcome: {
                                    [key: string]: unknown;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                            approval: {
                                required: boolean;
                                /** @description false: it holds at its time unless an admin approves this hash first */
                                approved: boolean;
                            } | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "schedules.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                scheduleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "schedule": {
                     *           "id": "sch_0504g09hrw9jehhnywaqxtg794",
                     *           "projectId": "proj_p9748kd8r7c6c27k1fshq6x5s8",
                     *           "kind": "push",
                     *           "status": "scheduled",
                     *           "at": "2026-11-28T15:55:45.783Z",
                     *           "revertAt": null,
                     *           "timeZone": null,
                     *           "atLocal": null,
                     *           "revertAtLocal": null,
                     *           "note": null,
                     *           "hash": "dabc3e881bba380981293b2eb8e93e35198b2f56802fff596201d18d5f300be9",
                     *           "release": null,
                     *           "summary": {
                     *             "changeCount": 3,
                     *             "mediaChangeCount": 0,
                     *             "releaseNoteChangeCount": 0,
                     *             "productChangeCount": 0,
                     *             "detailChangeCount": 0,
                     *             "fields": [
                     *               {
                     *                 "store": "appstore",
                     *                 "locale": "en-US",
                     *                 "field": "name",
                     *                 "new": "Weather Pro"
                     *               },
                     *               {
                     *                 "store": "appstore",
                     *                 "locale": "en-US",
                     *                 "field": "subtitle",
                     *                 "new": "Rain"
                     *               }
                     *             ]
                     *           },
                     *           "createdBy": {
                     *             "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "operator": null
                     *           },
                     *           "operationId": null,
                     *           "revertOperationId": null,
                     *           "reason": null,
                     *           "outcome": null,
                     *           "createdAt": "2026-11-28T14:55:45.783Z",
                     *           "updatedAt": "2026-11-28T14:55:45.783Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            schedule: {
                                id: string;
                                projectId: string;
                                /** @enum {string} */
                                kind: "push" | "release";
                                /**
                                 * @description scheduled → running → completed, or held (not pushed: the reason says why) or failed; a campaign is live between its push and its revert (reverting → completed); cancelled
                                 * @enum {string}
                                 */
                                status: "scheduled" | "running" | "live" | "reverting" | "completed" | "held" | "failed" | "cancelled";
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                at: string;
                                revertAt: string | null;
                                timeZone: string | null;
                                atLocal: string | null;
                                revertAtLocal: string | null;
                                note: string | null;
                                hash: string | null;
                                release: {
                                    /** @enum {string} */
                                    store: "appstore" | "playstore";
                                    /**
                                     * @description App Store: setReleaseType, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease. Google Play: setRolloutFraction, haltRollout, resumeRollout, completeRollout.
                                     * @enum {string}
                                     */
                                    action: "setReleaseType" | "enablePhasedRelease" | "pausePhasedRelease" | "resumePhasedRelease" | "completePhasedRelease" | "setRolloutFraction" | "haltRollout" | "resumeRollout" | "completeRollout";
                                    /** @enum {string} */
                                    releaseType?: "MANUAL" | "AFTER_APPROVAL" | "SCHEDULED";
                                    /** @description With SCHEDULED: a time on the hour with an offset */
                                    earliestReleaseDate?: string;
                                    /** @description Google Play: production, beta, … */
                                    track?: string;
                                    /** @description setRolloutFraction: the share of users, 0 < f < 1 */
                                    fraction?: number;
                                } | null;
                                summary: {
                                    changeCount: number;
                                    mediaChangeCount: number;
                                    releaseNoteChangeCount: number;
                                    productChangeCount: number;
                                    detailChangeCount: number;
                                    fields: {
                                        store: string;
                                        locale: string;
                                        field: string;
                                        new: string | null;
                                    }[];
                                } | null;
                                createdBy: {
                                    memberId: string | null;
                                    operator: string | null;
                                };
                                operationId: string | null;
                                revertOperationId: string | null;
                                reason: string | null;
                                outcome: {
                                    [key: string]: unknown;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "schedules.cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                scheduleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "schedule": {
                     *           "id": "sch_thf64pbp3r308zx2z48mp7fgy0",
                     *           "projectId": "proj_91zakkk0j33x34406n4t7480a4",
                     *           "kind": "push",
                     *           "status": "cancelled",
                     *           "at": "2026-11-28T15:55:43.012Z",
                     *           "revertAt": null,
                     *           "timeZone": null,
                     *           "atLocal": null,
                     *           "revertAtLocal": null,
                     *           "note": null,
                     *           "hash": "dabc3e881bba380981293b2eb8e93e35198b2f56802fff596201d18d5f300be9",
                     *           "release": null,
                     *           "summary": {
                     *             "changeCount": 3,
                     *             "mediaChangeCount": 0,
                     *             "releaseNoteChangeCount": 0,
                     *             "productChangeCount": 0,
                     *             "detailChangeCount": 0,
                     *             "fields": [
                     *               {
                     *                 "store": "appstore",
                     *                 "locale": "en-US",
                     *                 "field": "name",
                     *                 "new": "Weather Pro"
                     *               },
                     *               {
                     *                 "store": "appstore",
                     *                 "locale": "en-US",
                     *                 "field": "subtitle",
                     *                 "new": "Rain"
                     *               }
                     *             ]
                     *           },
                     *           "createdBy": {
                     *             "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "operator": null
                     *           },
                     *           "operationId": null,
                     *           "revertOperationId": null,
                     *           "reason": "cancelled",
                     *           "outcome": null,
                     *           "createdAt": "2026-11-28T14:55:43.016Z",
                     *           "updatedAt": "2026-11-28T14:55:43.039Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            schedule: {
                                id: string;
                                projectId: string;
                                /** @enum {string} */
                                kind: "push" | "release";
                                /**
                                 * @description scheduled → running → completed, or held (not pushed: the reason says why) or failed; a campaign is live between its push and its revert (reverting → completed); cancelled
                                 * @enum {string}
                                 */
                                status: "scheduled" | "running" | "live" | "reverting" | "completed" | "held" | "failed" | "cancelled";
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                at: string;
                                revertAt: string | null;
                                timeZone: string | null;
                                atLocal: string | null;
                                revertAtLocal: string | null;
                                note: string | null;
                                hash: string | null;
                                release: {
                                    /** @enum {string} */
                                    store: "appstore" | "playstore";
                                    /**
                                     * @description App Store: setReleaseType, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease. Google Play: setRolloutFraction, haltRollout, resumeRollout, completeRollout.
                                     * @enum {string}
                                     */
                                    action: "setReleaseType" | "enablePhasedRelease" | "pausePhasedRelease" | "resumePhasedRelease" | "completePhasedRelease" | "setRolloutFraction" | "haltRollout" | "resumeRollout" | "completeRollout";
                                    /** @enum {string} */
                                    releaseType?: "MANUAL" | "AFTER_APPROVAL" | "SCHEDULED";
                                    /** @description With SCHEDULED: a time on the hour with an offset */
                                    earliestReleaseDate?: string;
                                    /** @description Google Play: production, beta, … */
                                    track?: string;
                                    /** @description setRolloutFraction: the share of users, 0 < f < 1 */
                                    fraction?: number;
                                } | null;
                                summary: {
                                    changeCount: number;
                                    mediaChangeCount: number;
                                    releaseNoteChangeCount: number;
                                    productChangeCount: number;
                                    detailChangeCount: number;
                                    fields: {
                                        store: string;
                                        locale: string;
                                        field: string;
                                        new: string | null;
                                    }[];
                                } | null;
                                createdBy: {
                                    memberId: string | null;
                                    operator: string | null;
                                };
                                operationId: string | null;
                                revertOperationId: string | null;
                                reason: string | null;
                                outcome: {
                                    [key: string]: unknown;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "translations.status": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "sourceLocale": "en-US",
                     *         "stores": [
                     *           "appstore"
                     *         ],
                     *         "items": [],
                     *         "counts": {
                     *           "missing": 0,
                     *           "outdated": 0,
                     *           "draft": 0,
                     *           "current": 0
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            sourceLocale: string;
                            /** @description The stores with a listing in the source locale */
                            stores: ("appstore" | "playstore")[];
                            items: {
                                /** @description The target locale, in the store's own code */
                                locale: string;
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                field: string;
                                /**
                                 * @description missing: no text; outdated: the source changed since it was translated; draft: a machine translation waits for a member; current
                                 * @enum {string}
                                 */
                                state: "missing" | "outdated" | "draft" | "current";
                                draft?: {
                                    /** @description Characters (Unicode code points) */
                                    length: number;
                                    limit: number | null;
                                    /** @description Over the limit: cannot be accepted until shortened */
                                    overLimit: boolean;
                                    note: string | null;
                                };
                            }[];
                            /** @description Items per state */
                            counts: {
                                [key: string]: number;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "translations.exportAll": {
        parameters: {
            query?: {
                /** @description XLIFF version */
                version?: "2.0" | "1.2";
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A zip of XLIFF files */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": Blob;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "translations.export": {
        parameters: {
            query?: {
                /** @description XLIFF version */
                version?: "2.0" | "1.2";
            };
            header?: never;
            path: {
                projectId: string;
                /** @description A target locale, e.g. de-DE */
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The XLIFF document */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/xliff+xml": string;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "translations.import": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                /** @description A target locale, e.g. de-DE */
                locale: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/xliff+xml": Blob;
                "application/x-xliff+xml": Blob;
                "application/xml": Blob;
                "text/xml": Blob;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "locale": "de-DE",
                     *         "version": "2.0",
                     *         "imported": [
                     *           {
                     *             "store": "appstore",
                     *             "field": "subtitle"
                     *           }
                     *         ],
                     *         "ignored": 2
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            locale: string;
                            /** @enum {string} */
                            version: "2.0" | "1.2";
                            /** @description Units written, or confirmed unchanged (their state raised) */
                            imported: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                field: string;
                            }[];
                            /** @description Units untouched or without a target */
                            ignored: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "translations.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                /** @description A target locale, e.g. de-DE */
                locale: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "sourceLocale": "en-US",
                     *         "locale": "de-DE",
                     *         "entries": [
                     *           {
                     *             "store": "appstore",
                     *             "locale": "de-DE",
                     *             "field": "name",
                     *             "state": "missing",
                     *             "source": "Weather Pro",
                     *             "target": null,
                     *             "translatedFrom": null,
                     *             "draft": null
                     *           },
                     *           {
                     *             "store": "appstore",
                     *             "locale": "de-DE",
                     *             "field": "subtitle",
                     *             "state": "missing",
                     *             "source": "Rain",
                     *             "target": null,
                     *             "translatedFrom": null,
                     *             "draft": null
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            sourceLocale: string;
                            locale: string;
                            entries: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                field: string;
                                /**
                                 * @description missing: no text; outdated: the source changed since it was translated; draft: a machine translation waits for a member; current
                                 * @enum {string}
                                 */
                                state: "missing" | "outdated" | "draft" | "current";
                                source: string | null;
                                target: string | null;
                                translatedFrom: string | null;
                                limit?: number | null;
                                /** @description A product text (field products.<productId>.<field>): its product and field */
                                product?: {
                                    productId: string;
                                    kind: string;
                                    field: string;
                                };
                                draft: {
                                    text: string;
                                    sourceValue: string | null;
                                    provider: string;
                                    /**
                                     * Format: date-time
                                     * @description ISO 8601 UTC with milliseconds
                                     */
                                    createdAt: string;
                                    /** @description Characters (Unicode code points) */
                                    length: number;
                                    limit: number | null;
                                    /** @description Over the limit: cannot be accepted until shortened */
                                    overLimit: boolean;
                                    note: string | null;
                                } | null;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "translations.machine": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "targetLocales": [
                 *         "de-DE"
                 *       ]
                 *     }
                 */
                "application/json": {
                    targetLocales: string[];
                    stores?: ("appstore" | "playstore")[];
                    fields?: string[];
                    /** @description Which fields to translate by state (default: missing and outdated) */
                    states?: ("missing" | "outdated" | "draft" | "current")[];
                    /**
                     * @description Where the target language has it (de, fr, ja, …)
                     * @enum {string}
                     */
                    formality?: "more" | "less";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "provider": "deepl",
                     *         "drafts": [
                     *           {
                     *             "store": "appstore",
                     *             "locale": "de-DE",
                     *             "field": "name",
                     *             "length": 13,
                     *             "limit": 30,
                     *             "overLimit": false,
                     *             "note": null
                     *           },
                     *           {
                     *             "store": "appstore",
                     *             "locale": "de-DE",
                     *             "field": "subtitle",
                     *             "length": 4,
                     *             "limit": 30,
                     *             "overLimit": false,
                     *             "note": null
                     *           }
                     *         ],
                     *         "errors": [],
                     *         "usage": {
                     *           "characters": 25,
                     *           "month": {
                     *             "period": "2026-11",
                     *             "characters": 50,
                     *             "requests": 2
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            provider: string;
                            drafts: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                field: string;
                                /** @description Characters (Unicode code points) */
                                length: number;
                                limit: number | null;
                                /** @description Over the limit: cannot be accepted until shortened */
                                overLimit: boolean;
                                note: string | null;
                            }[];
                            errors: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                field: string;
                                /** @description PROVIDER_AUTH, PROVIDER_QUOTA, PROVIDER_RATE_LIMITED, … */
                                code: string;
                                message: string;
                                retryAfterSeconds?: number;
                            }[];
                            usage: {
                                /** @description Billed for this request */
                                characters: number;
                                month: {
                                    period: string;
                                    characters: number;
                                    requests: number;
                                };
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "translations.accept": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                projectId: string;
                /** @description A target locale, e.g. de-DE */
                locale: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /** @example {} */
                "application/json": {
                    /** @enum {string} */
                    store?: "appstore" | "playstore";
                    fields?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "locale": "de-DE",
                     *         "accepted": [
                     *           {
                     *             "store": "appstore",
                     *             "field": "name"
                     *           },
                     *           {
                     *             "store": "appstore",
                     *             "field": "subtitle"
                     *           }
                     *         ],
                     *         "skipped": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            locale: string;
                            accepted: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                field: string;
                            }[];
                            /** @description Drafts over their limit (when no fields were named) */
                            skipped: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                field: string;
                                reason: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "glossaries.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "glossaries": [
                     *           {
                     *             "sourceLanguage": "en",
                     *             "targetLanguage": "de",
                     *             "entries": {
                     *               "Weather Pro": "Weather Pro"
                     *             },
                     *             "updatedAt": "2026-11-28T14:55:46.065Z"
                     *           },
                     *           {
                     *             "sourceLanguage": "en",
                     *             "targetLanguage": "fr",
                     *             "entries": {
                     *               "Weather Pro": "Weather Pro"
                     *             },
                     *             "updatedAt": "2026-11-28T14:55:45.647Z"
                     *           }
                     *         ],
                     *         "usage": {
                     *           "period": "2026-11",
                     *           "characters": 75,
                     *           "requests": 3
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            glossaries: {
                                sourceLanguage: string;
                                targetLanguage: string;
                                /** @description source term → target term */
                                entries: {
                                    [key: string]: string;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            }[];
                            /** @description This month's machine translation */
                            usage: {
                                period: string;
                                characters: number;
                                requests: number;
                            };
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "glossaries.set": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Source language, e.g. en */
                source: string;
                /** @description Target language, e.g. de */
                target: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "terms": [
                 *         "Weather Pro"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description Terms kept as they are: the app name, trademarks */
                    terms?: string[];
                    /** @description source term → target term */
                    entries?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "sourceLanguage": "en",
                     *         "targetLanguage": "de",
                     *         "entries": {
                     *           "Weather Pro": "Weather Pro"
                     *         },
                     *         "updatedAt": "2026-11-28T14:55:46.065Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            sourceLanguage: string;
                            targetLanguage: string;
                            /** @description source term → target term */
                            entries: {
                                [key: string]: string;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            updatedAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "glossaries.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Source language, e.g. en */
                source: string;
                /** @description Target language, e.g. de */
                target: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "deleted": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            deleted: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "organization.get": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "id": "org_mrmp4m49hed3xqtzvfqbcv8jq4",
                     *         "name": "New name",
                     *         "plan": "enterprise",
                     *         "memberCount": 7,
                     *         "settings": {
                     *           "defaultLocale": "en-US",
                     *           "requireApproval": false,
                     *           "allowedDomains": [],
                     *           "driftCheckMinutes": 60,
                     *           "doNotTranslate": []
                     *         },
                     *         "usage": {
                     *           "mediaBytes": 38448,
                     *           "mediaBytesLimit": null
                     *         },
                     *         "createdAt": "2026-11-28T14:55:41.973Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            name: string;
                            /** @enum {string} */
                            plan: "free" | "pro" | "enterprise";
                            memberCount: number;
                            settings: {
                                /**
                                 * @description A locale code both stores accept
                                 * @example en-US
                                 */
                                defaultLocale: string;
                                requireApproval: boolean;
                                /** @description E-mail domains that invites may go to; empty = any */
                                allowedDomains: string[];
                                /** @description Minutes between read-only checks of each linked store for edits made there; 0 = off */
                                driftCheckMinutes: number;
                                /** @description Terms machine translation keeps as written in every language (the app name, trademarks); shown to translators */
                                doNotTranslate: string[];
                            };
                            usage: {
                                /** @description Bytes of the distinct media files the organization holds */
                                mediaBytes: number;
                                mediaBytesLimit: number | null;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            createdAt: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "organization.update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "New name"
                 *     }
                 */
                "application/json": {
                    /** @description 1..200 characters on one line; surrounding whitespace is trimmed */
                    name?: string;
                    /** @description Merged into the current settings; unknown keys are 400 */
                    settings?: {
                        defaultLocale?: string;
                        requireApproval?: boolean;
                        allowedDomains?: string[];
                        driftCheckMinutes?: number;
                        doNotTranslate?: string[];
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "id": "org_mrmp4m49hed3xqtzvfqbcv8jq4",
                     *         "name": "New name",
                     *         "settings": {
                     *           "defaultLocale": "en-US",
                     *           "requireApproval": false,
                     *           "allowedDomains": [],
                     *           "driftCheckMinutes": 60,
                     *           "doNotTranslate": []
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            name: string;
                            settings: {
                                /**
                                 * @description A locale code both stores accept
                                 * @example en-US
                                 */
                                defaultLocale: string;
                                requireApproval: boolean;
                                /** @description E-mail domains that invites may go to; empty = any */
                                allowedDomains: string[];
                                /** @description Minutes between read-only checks of each linked store for edits made there; 0 = off */
                                driftCheckMinutes: number;
                                /** @description Terms machine translation keeps as written in every language (the app name, trademarks); shown to translators */
                                doNotTranslate: string[];
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "organization.usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "plan": "enterprise",
                     *         "projects": {
                     *           "used": 82,
                     *           "limit": null
                     *         },
                     *         "seats": {
                     *           "used": 6,
                     *           "limit": null
                     *         },
                     *         "mediaBytes": {
                     *           "used": 17088,
                     *           "limit": null
                     *         },
                     *         "requestsPerMinute": 10000
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {string} */
                            plan: "free" | "pro" | "enterprise";
                            projects: {
                                used: number;
                                limit: number | null;
                            };
                            seats: {
                                used: number;
                                limit: number | null;
                            };
                            mediaBytes: {
                                used: number;
                                limit: number | null;
                            };
                            requestsPerMinute: number;
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "auditLog.list": {
        parameters: {
            query?: {
                /** @description 1..100 */
                limit?: number;
                offset?: number;
                /** @description A member id: what that member did */
                actor?: string;
                /** @description Changes made in this project */
                projectId?: string;
                /** @description An operation id (`listings.update`), or a prefix ending in `.` (`listings.`) */
                action?: string;
                /** @description Entries at or after this time */
                from?: string;
                /** @description Entries before this time */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "entries": [
                     *           {
                     *             "id": "aud_09sq1dhgp4s6r248kv15kkk6cc",
                     *             "actor": {
                     *               "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *               "keyId": "key_fgbex34yzct108d0ntwpyhxk0w",
                     *               "operator": null,
                     *               "name": "Admin"
                     *             },
                     *             "action": "listings.update",
                     *             "target": {
                     *               "type": "listing",
                     *               "id": "appstore/en-US"
                     *             },
                     *             "project": {
                     *               "id": "proj_eztghqtdzpjyze23xpa1h1mtsm",
                     *               "name": "Project 334"
                     *             },
                     *             "details": {
                     *               "fields": [
                     *                 "name",
                     *                 "subtitle"
                     *               ]
                     *             },
                     *             "createdAt": "2026-11-28T14:55:48.787Z"
                     *           },
                     *           {
                     *             "id": "aud_grjn71412tjbpjjpe6s2xee8r4",
                     *             "actor": {
                     *               "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *               "keyId": "key_fgbex34yzct108d0ntwpyhxk0w",
                     *               "operator": null,
                     *               "name": "Admin"
                     *             },
                     *             "action": "projects.create",
                     *             "target": {
                     *               "type": "project",
                     *               "id": "proj_eztghqtdzpjyze23xpa1h1mtsm"
                     *             },
                     *             "project": {
                     *               "id": "proj_eztghqtdzpjyze23xpa1h1mtsm",
                     *               "name": "Project 334"
                     *             },
                     *             "details": {
                     *               "name": "Project 334"
                     *             },
                     *             "createdAt": "2026-11-28T14:55:48.784Z"
                     *           }
                     *         ],
                     *         "total": 1021,
                     *         "limit": 20,
                     *         "offset": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            entries: {
                                id: string;
                                actor: {
                                    memberId: string | null;
                                    keyId: string | null;
                                    operator: string | null;
                                    name: string | null;
                                };
                                /** @description The operation id, e.g. members.updateRole */
                                action: string;
                                target: {
                                    type: string;
                                    id: string;
                                };
                                project: {
                                    id: string;
                                    name: string | null;
                                } | null;
                                details: {
                                    [key: string]: unknown;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            }[];
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "auditLog.export": {
        parameters: {
            query?: {
                /** @description A member id: what that member did */
                actor?: string;
                /** @description Changes made in this project */
                projectId?: string;
                /** @description An operation id (`listings.update`), or a prefix ending in `.` (`listings.`) */
                action?: string;
                /** @description Entries at or after this time */
                from?: string;
                /** @description Entries before this time */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The entries, as an attachment */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "members.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "members": [
                     *           {
                     *             "id": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "email": "admin1-857b48@example.com",
                     *             "name": "Admin",
                     *             "role": "admin",
                     *             "status": "active",
                     *             "lastActive": "2026-11-28T14:55:41.985Z",
                     *             "joinedAt": "2026-11-28T14:55:41.973Z",
                     *             "access": {
                     *               "projects": "all",
                     *               "locales": "all",
                     *               "approve": false
                     *             }
                     *           },
                     *           {
                     *             "id": "mem_0v1h9p1xy9j6dw7v9fn7sgmxj0",
                     *             "email": "member2-70a9a6@example.com",
                     *             "name": "member 2",
                     *             "role": "member",
                     *             "status": "active",
                     *             "lastActive": "2026-11-28T14:55:42.387Z",
                     *             "joinedAt": "2026-11-28T14:55:42.025Z",
                     *             "access": {
                     *               "projects": "all",
                     *               "locales": "all",
                     *               "approve": false
                     *             }
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            members: {
                                id: string;
                                email: string;
                                name: string;
                                /** @enum {string} */
                                role: "admin" | "member" | "viewer";
                                /** @enum {string} */
                                status: "active";
                                lastActive: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                joinedAt: string;
                                access: {
                                    /** @description "all", or the ids of the projects the member sees */
                                    projects: "all" | string[];
                                    /** @description "all", or the locale codes the member may change */
                                    locales: "all" | string[];
                                    /** @description May approve changes whose projects and locales are all in scope */
                                    approve: boolean;
                                };
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "invites.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "i09416086716754823@example.com"
                 *     }
                 */
                "application/json": {
                    email: string;
                    /** @enum {string} */
                    role?: "admin" | "member" | "viewer";
                    access?: {
                        /** @description "all", or the ids of the projects the member sees */
                        projects?: "all" | string[];
                        /** @description "all", or the locale codes the member may change */
                        locales?: "all" | string[];
                        /** @description May approve changes whose projects and locales are all in scope */
                        approve?: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "inviteId": "inv_facp8be2h4zzr10a7f92jdzt8g",
                     *         "email": "i09416086716754823@example.com",
                     *         "role": "member",
                     *         "expiresAt": "2026-12-05T14:55:46.587Z",
                     *         "access": {
                     *           "projects": "all",
                     *           "locales": "all",
                     *           "approve": false
                     *         }
                     *       },
                     *       "delivery": "share_link",
                     *       "inviteUrl": "http://appmeta.test/invite/inv_facp8be2h4zzr10a7f92jdzt8g"
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            inviteId: string;
                            email: string;
                            /** @enum {string} */
                            role: "admin" | "member" | "viewer";
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            expiresAt: string;
                            access: {
                                /** @description "all", or the ids of the projects the member sees */
                                projects: "all" | string[];
                                /** @description "all", or the locale codes the member may change */
                                locales: "all" | string[];
                                /** @description May approve changes whose projects and locales are all in scope */
                                approve: boolean;
                            };
                        };
                        /** @enum {string} */
                        delivery: "share_link";
                        /** Format: uri */
                        inviteUrl: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "members.remove": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memberId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Member member236-252261@example.com was removed and their API keys revoked"
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "members.updateRole": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memberId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "role": "viewer"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    role?: "admin" | "member" | "viewer";
                    access?: {
                        /** @description "all", or the ids of the projects the member sees */
                        projects?: "all" | string[];
                        /** @description "all", or the locale codes the member may change */
                        locales?: "all" | string[];
                        /** @description May approve changes whose projects and locales are all in scope */
                        approve?: boolean;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "id": "mem_a6kq2m64qrr83z2x4jascwa1x8",
                     *         "role": "viewer",
                     *         "access": {
                     *           "projects": "all",
                     *           "locales": "all",
                     *           "approve": false
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            /** @enum {string} */
                            role: "admin" | "member" | "viewer";
                            access: {
                                /** @description "all", or the ids of the projects the member sees */
                                projects: "all" | string[];
                                /** @description "all", or the locale codes the member may change */
                                locales: "all" | string[];
                                /** @description May approve changes whose projects and locales are all in scope */
                                approve: boolean;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "invites.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "invites": [
                     *           {
                     *             "inviteId": "inv_c8wry3ck5vtnrt3fptm6qjv4t8",
                     *             "email": "r17958777476509592773465329396@example.com",
                     *             "role": "member",
                     *             "expiresAt": "2026-12-05T14:55:47.651Z",
                     *             "access": {
                     *               "projects": "all",
                     *               "locales": "all",
                     *               "approve": false
                     *             },
                     *             "status": "pending",
                     *             "invitedBy": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "createdAt": "2026-11-28T14:55:47.651Z"
                     *           },
                     *           {
                     *             "inviteId": "inv_facp8be2h4zzr10a7f92jdzt8g",
                     *             "email": "i09416086716754823@example.com",
                     *             "role": "member",
                     *             "expiresAt": "2026-12-05T14:55:46.587Z",
                     *             "access": {
                     *               "projects": "all",
                     *               "locales": "all",
                     *               "approve": false
                     *             },
                     *             "status": "pending",
                     *             "invitedBy": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "createdAt": "2026-11-28T14:55:46.587Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            invites: {
                                inviteId: string;
                                email: string;
                                /** @enum {string} */
                                role: "admin" | "member" | "viewer";
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                expiresAt: string;
                                access: {
                                    /** @description "all", or the ids of the projects the member sees */
                                    projects: "all" | string[];
                                    /** @description "all", or the locale codes the member may change */
                                    locales: "all" | string[];
                                    /** @description May approve changes whose projects and locales are all in scope */
                                    approve: boolean;
                                };
                                status: "pending" | "expired";
                                invitedBy: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "invites.revoke": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                inviteId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "revoked": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            revoked: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "apiKeys.list": {
        parameters: {
            query?: {
                memberId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "keys": [
                     *           {
                     *             "id": "key_fgbex34yzct108d0ntwpyhxk0w",
                     *             "name": "Initial admin key",
                     *             "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *             "prefix": "amk_4VjXLXKi",
                     *             "createdAt": "2026-11-28T14:55:41.974Z",
                     *             "lastUsedAt": "2026-11-28T14:55:41.985Z",
                     *             "expiresAt": null
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            keys: {
                                id: string;
                                name: string;
                                memberId: string;
                                /** @description First characters of the secret */
                                prefix: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                lastUsedAt: string | null;
                                expiresAt: string | null;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "apiKeys.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "name": "mine"
                 *     }
                 */
                "application/json": {
                    /** @description 1..100 characters; surrounding whitespace is trimmed */
                    name?: string;
                    memberId?: string;
                    expiresAt?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "apiKey": "amk_EXAMPLE",
                     *         "key": {
                     *           "id": "key_jt36psyq1cj3yyndscaasm3v14",
                     *           "name": "mine",
                     *           "memberId": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *           "prefix": "amk_aJPCx01O",
                     *           "createdAt": "2026-11-28T14:55:46.338Z",
                     *           "lastUsedAt": null,
                     *           "expiresAt": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            apiKey: string;
                            key: {
                                id: string;
                                name: string;
                                memberId: string;
                                /** @description First characters of the secret */
                                prefix: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                lastUsedAt: string | null;
                                expiresAt: string | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "apiKeys.revoke": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "revoked": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            revoked: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "credentials.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "credentials": [
                     *           {
                     *             "store": "appstore",
                     *             "configured": true,
                     *             "issuerId": "6b49595a-fad2-4595-b1b3-4a799bc8af85",
                     *             "keyId": "K06E700A8A",
                     *             "updatedAt": "2026-11-28T14:55:46.330Z",
                     *             "lastVerification": null
                     *           },
                     *           {
                     *             "store": "playstore",
                     *             "configured": true,
                     *             "clientEmail": "svc-2d9fab51@example-project.iam.gserviceaccount.com",
                     *             "projectId": "example-project",
                     *             "updatedAt": "2026-11-28T14:55:46.296Z",
                     *             "lastVerification": null
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            credentials: {
                                /** @enum {string} */
                                store: "appstore" | "playstore" | "deepl";
                                configured: boolean;
                                /** @description DeepL: an API Free key */
                                free?: boolean;
                                issuerId?: string;
                                keyId?: string;
                                clientEmail?: string;
                                projectId?: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt?: string;
                                lastVerification?: {
                                    /**
                                     * Format: date-time
                                     * @description ISO 8601 UTC with milliseconds
                                     */
                                    at: string;
                                    verified: boolean;
                                    error?: {
                                        code: string;
                                        message: string;
                                    };
                                } | null;
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "credentials.setAppStore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "issuerId": "ec077cb1-9a04-420e-b7a6-ce99c6e24a90",
                 *       "keyId": "KEE7C7629C",
                 *       "privateKey": "-----BEGIN PRIVATE KEY-----\n…\n-----END PRIVATE KEY-----"
                 *     }
                 */
                "application/json": {
                    issuerId: string;
                    keyId: string;
                    privateKey: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "appstore",
                     *         "configured": true,
                     *         "issuerId": "ec077cb1-9a04-420e-b7a6-ce99c6e24a90",
                     *         "keyId": "KEE7C7629C",
                     *         "updatedAt": "2026-11-28T14:55:46.962Z",
                     *         "lastVerification": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {string} */
                            store: "appstore" | "playstore" | "deepl";
                            configured: boolean;
                            /** @description DeepL: an API Free key */
                            free?: boolean;
                            issuerId?: string;
                            keyId?: string;
                            clientEmail?: string;
                            projectId?: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            updatedAt?: string;
                            lastVerification?: {
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                at: string;
                                verified: boolean;
                                error?: {
                                    code: string;
                                    message: string;
                                };
                            } | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "credentials.setPlayStore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "serviceAccount": {
                 *         "type": "service_account",
                 *         "project_id": "example-project",
                 *         "private_key_id": "8bbf73e6b503486e86019d2aea511faa",
                 *         "private_key": "-----BEGIN PRIVATE KEY-----\n…\n-----END PRIVATE KEY-----",
                 *         "client_email": "svc-2d9fab51@example-project.iam.gserviceaccount.com",
                 *         "client_id": "1234567890",
                 *         "token_uri": "https://attacker.example/token"
                 *       }
                 *     }
                 */
                "application/json": {
                    serviceAccount: string | {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "playstore",
                     *         "configured": true,
                     *         "clientEmail": "svc-2d9fab51@example-project.iam.gserviceaccount.com",
                     *         "projectId": "example-project",
                     *         "updatedAt": "2026-11-28T14:55:48.133Z",
                     *         "lastVerification": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {string} */
                            store: "appstore" | "playstore" | "deepl";
                            configured: boolean;
                            /** @description DeepL: an API Free key */
                            free?: boolean;
                            issuerId?: string;
                            keyId?: string;
                            clientEmail?: string;
                            projectId?: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            updatedAt?: string;
                            lastVerification?: {
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                at: string;
                                verified: boolean;
                                error?: {
                                    code: string;
                                    message: string;
                                };
                            } | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "credentials.setDeepl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "apiKey": "EXAMPLE"
                 *     }
                 */
                "application/json": {
                    apiKey: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "deepl",
                     *         "configured": true,
                     *         "free": false,
                     *         "updatedAt": "2026-11-28T14:55:48.666Z",
                     *         "lastVerification": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {string} */
                            store: "appstore" | "playstore" | "deepl";
                            configured: boolean;
                            /** @description DeepL: an API Free key */
                            free?: boolean;
                            issuerId?: string;
                            keyId?: string;
                            clientEmail?: string;
                            projectId?: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            updatedAt?: string;
                            lastVerification?: {
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                at: string;
                                verified: boolean;
                                error?: {
                                    code: string;
                                    message: string;
                                };
                            } | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "credentials.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                store: "appstore" | "playstore" | "deepl";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "deleted": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            deleted: boolean;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "credentials.verify": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                store: "appstore" | "playstore" | "deepl";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "store": "appstore",
                     *         "verified": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            store: string;
                            verified: boolean;
                            error?: {
                                code: string;
                                message: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "locales.list": {
        parameters: {
            query?: {
                projectId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "stores": {
                     *           "appstore": [
                     *             {
                     *               "code": "ar-SA",
                     *               "name": "Arabic (Saudi Arabia)"
                     *             },
                     *             {
                     *               "code": "bn-BD",
                     *               "name": "Bangla (Bangladesh)"
                     *             }
                     *           ],
                     *           "playstore": [
                     *             {
                     *               "code": "af",
                     *               "name": "Afrikaans"
                     *             },
                     *             {
                     *               "code": "am",
                     *               "name": "Amharic"
                     *             }
                     *           ]
                     *         },
                     *         "common": [
                     *           "bn-BD",
                     *           "ca"
                     *         ],
                     *         "project": {
                     *           "appstore": [
                     *             "en-US"
                     *           ],
                     *           "playstore": []
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            stores: {
                                /** @description Apple's codes (case-sensitive) */
                                appstore: {
                                    code: string;
                                    /** @description English name */
                                    name: string;
                                }[];
                                /** @description Google Play's codes */
                                playstore: {
                                    code: string;
                                    /** @description English name */
                                    name: string;
                                }[];
                            };
                            /** @description Codes both stores accept as written */
                            common: string[];
                            project: {
                                appstore: string[];
                                playstore: string[];
                            } | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "webhooks.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "webhooks": [
                     *           {
                     *             "id": "wh_szyfxk2vr5mh9qnsgwej8ve78g",
                     *             "url": "https://hooks.example.com/appmeta",
                     *             "description": "",
                     *             "events": [],
                     *             "enabled": true,
                     *             "disabledReason": null,
                     *             "failingSince": null,
                     *             "previousSecretExpiresAt": null,
                     *             "createdAt": "2026-11-28T14:55:42.787Z",
                     *             "updatedAt": "2026-11-28T14:55:42.787Z"
                     *           },
                     *           {
                     *             "id": "wh_2bhfqvsk1qn2rzfykqnrd0z5s8",
                     *             "url": "https://hooks.example.com/appmeta",
                     *             "description": "",
                     *             "events": [],
                     *             "enabled": true,
                     *             "disabledReason": null,
                     *             "failingSince": null,
                     *             "previousSecretExpiresAt": null,
                     *             "createdAt": "2026-11-28T14:55:43.125Z",
                     *             "updatedAt": "2026-11-28T14:55:43.125Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            webhooks: {
                                id: string;
                                url: string;
                                description: string;
                                events: string[];
                                enabled: boolean;
                                disabledReason: string | null;
                                failingSince: string | null;
                                previousSecretExpiresAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "webhooks.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/appmeta"
                 *     }
                 */
                "application/json": {
                    /** @description http(s) URL that receives POSTs */
                    url: string;
                    /** @description Event types to send; empty or omitted = all. One of: listing.updated, sync.completed, sync.conflict, push.completed, push.failed, approval.requested, approval.granted, member.joined, member.removed, drift.detected, operation.progress, schedule.completed, schedule.held, schedule.failed, webhook.disabled */
                    events?: string[];
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "webhook": {
                     *           "id": "wh_kzvf5t02g8y8h5zzzkf3zdzvjw",
                     *           "url": "https://hooks.example.com/appmeta",
                     *           "description": "",
                     *           "events": [],
                     *           "enabled": true,
                     *           "disabledReason": null,
                     *           "failingSince": null,
                     *           "previousSecretExpiresAt": null,
                     *           "createdAt": "2026-11-28T14:55:44.153Z",
                     *           "updatedAt": "2026-11-28T14:55:44.153Z"
                     *         },
                     *         "secret": "whsec_EXAMPLE"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            webhook: {
                                id: string;
                                url: string;
                                description: string;
                                events: string[];
                                enabled: boolean;
                                disabledReason: string | null;
                                failingSince: string | null;
                                previousSecretExpiresAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                            /** @description whsec_...: shown this once; verify signatures with it */
                            secret: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "webhooks.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "webhook": {
                     *           "id": "wh_4a1hrzxpet7ahfdxg5z4xxg4r8",
                     *           "url": "https://hooks.example.com/appmeta",
                     *           "description": "",
                     *           "events": [],
                     *           "enabled": true,
                     *           "disabledReason": null,
                     *           "failingSince": null,
                     *           "previousSecretExpiresAt": null,
                     *           "createdAt": "2026-11-28T14:55:46.602Z",
                     *           "updatedAt": "2026-11-28T14:55:46.602Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            webhook: {
                                id: string;
                                url: string;
                                description: string;
                                events: string[];
                                enabled: boolean;
                                disabledReason: string | null;
                                failingSince: string | null;
                                previousSecretExpiresAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "webhooks.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Webhook removed"
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        message: string;
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "webhooks.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "CI"
                 *     }
                 */
                "application/json": {
                    /** @description http(s) URL that receives POSTs */
                    url?: string;
                    /** @description Event types to send; empty or omitted = all. One of: listing.updated, sync.completed, sync.conflict, push.completed, push.failed, approval.requested, approval.granted, member.joined, member.removed, drift.detected, operation.progress, schedule.completed, schedule.held, schedule.failed, webhook.disabled */
                    events?: string[];
                    description?: string;
                    /** @description true re-enables an endpoint disabled after failures */
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "webhook": {
                     *           "id": "wh_7xc6dzv1mhk74wr2wr8mrqj3hc",
                     *           "url": "https://hooks.example.com/appmeta",
                     *           "description": "CI",
                     *           "events": [],
                     *           "enabled": true,
                     *           "disabledReason": null,
                     *           "failingSince": null,
                     *           "previousSecretExpiresAt": null,
                     *           "createdAt": "2026-11-28T14:55:45.817Z",
                     *           "updatedAt": "2026-11-28T14:55:45.819Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            webhook: {
                                id: string;
                                url: string;
                                description: string;
                                events: string[];
                                enabled: boolean;
                                disabledReason: string | null;
                                failingSince: string | null;
                                previousSecretExpiresAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "webhooks.rotateSecret": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "webhook": {
                     *           "id": "wh_rkzh9xg7z3g6ccp17q4bzkcrgm",
                     *           "url": "https://hooks.example.com/appmeta",
                     *           "description": "",
                     *           "events": [],
                     *           "enabled": true,
                     *           "disabledReason": null,
                     *           "failingSince": null,
                     *           "previousSecretExpiresAt": "2026-11-29T14:55:44.545Z",
                     *           "createdAt": "2026-11-28T14:55:44.543Z",
                     *           "updatedAt": "2026-11-28T14:55:44.545Z"
                     *         },
                     *         "secret": "whsec_EXAMPLE"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            webhook: {
                                id: string;
                                url: string;
                                description: string;
                                events: string[];
                                enabled: boolean;
                                disabledReason: string | null;
                                failingSince: string | null;
                                previousSecretExpiresAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                updatedAt: string;
                            };
                            /** @description whsec_...: shown this once; verify signatures with it */
                            secret: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "webhooks.test": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "delivery": {
                     *           "id": "whd_wp8ppfny7ex4rtb8fg1ajx45g8",
                     *           "webhookId": "wh_2bhfqvsk1qn2rzfykqnrd0z5s8",
                     *           "eventId": "evt_jh5hrz0c95fv9z5zsv4tcsb8x8",
                     *           "eventType": "webhook.test",
                     *           "status": "pending",
                     *           "attemptCount": 0,
                     *           "attempts": [],
                     *           "nextAttemptAt": "2026-11-28T14:55:43.127Z",
                     *           "createdAt": "2026-11-28T14:55:43.127Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            delivery: {
                                id: string;
                                webhookId: string;
                                /** @description The webhook-id header of every attempt */
                                eventId: string;
                                eventType: string;
                                /** @enum {string} */
                                status: "pending" | "sending" | "succeeded" | "failed";
                                attemptCount: number;
                                attempts: {
                                    /**
                                     * Format: date-time
                                     * @description ISO 8601 UTC with milliseconds
                                     */
                                    at: string;
                                    status: number | null;
                                    durationMs: number;
                                    error: string | null;
                                    response: string | null;
                                }[];
                                nextAttemptAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "webhooks.deliveries": {
        parameters: {
            query?: {
                /** @description 1..100 */
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "deliveries": [],
                     *         "total": 0,
                     *         "limit": 20,
                     *         "offset": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            deliveries: {
                                id: string;
                                webhookId: string;
                                /** @description The webhook-id header of every attempt */
                                eventId: string;
                                eventType: string;
                                /** @enum {string} */
                                status: "pending" | "sending" | "succeeded" | "failed";
                                attemptCount: number;
                                attempts: {
                                    /**
                                     * Format: date-time
                                     * @description ISO 8601 UTC with milliseconds
                                     */
                                    at: string;
                                    status: number | null;
                                    durationMs: number;
                                    error: string | null;
                                    response: string | null;
                                }[];
                                nextAttemptAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            }[];
                            total: number;
                            limit: number;
                            offset: number;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "webhooks.redeliver": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path: {
                webhookId: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "delivery": {
                     *           "id": "whd_vspnfskchsy3y0qv6s5jq8rs60",
                     *           "webhookId": "wh_18vb4ngxdv6qmdh1vnvvm00yec",
                     *           "eventId": "evt_nffsrevp5da2h8nv75pphyhaw8",
                     *           "eventType": "webhook.test",
                     *           "status": "pending",
                     *           "attemptCount": 0,
                     *           "attempts": [],
                     *           "nextAttemptAt": "2026-11-28T14:55:48.152Z",
                     *           "createdAt": "2026-11-28T14:55:48.151Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            delivery: {
                                id: string;
                                webhookId: string;
                                /** @description The webhook-id header of every attempt */
                                eventId: string;
                                eventType: string;
                                /** @enum {string} */
                                status: "pending" | "sending" | "succeeded" | "failed";
                                attemptCount: number;
                                attempts: {
                                    /**
                                     * Format: date-time
                                     * @description ISO 8601 UTC with milliseconds
                                     */
                                    at: string;
                                    status: number | null;
                                    durationMs: number;
                                    error: string | null;
                                    response: string | null;
                                }[];
                                nextAttemptAt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "events.stream": {
        parameters: {
            query?: {
                /** @description As the Last-Event-ID header */
                lastEventId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "listings.import": {
        parameters: {
            query?: {
                /** @description The folder to read as the metadata tree, relative to the archive root: one holding fastlane/metadata or metadata, or the metadata folder itself ("." for the root). Needed only when the archive holds several trees. */
                path?: string;
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/gzip": Blob;
                "application/zip": Blob;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "tree": "fastlane/metadata",
                     *         "imported": [
                     *           {
                     *             "store": "appstore",
                     *             "locale": "en-US",
                     *             "fields": 1
                     *           }
                     *         ],
                     *         "releaseNotes": 0,
                     *         "details": 0,
                     *         "skipped": [],
                     *         "warnings": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @description The folder read as the metadata tree ("" for the archive root) */
                            tree: string;
                            imported: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                fields: number;
                            }[];
                            /** @description Google Play release notes taken from supply's changelogs/<versionCode>.txt and default.txt */
                            releaseNotes: number;
                            /** @description App Store details taken from deliver's copyright.txt, *_category.txt and review_information/ */
                            details: number;
                            /** @description What the tree holds besides listing texts and changelogs (images, other folders), and why */
                            skipped: {
                                /** @description A file, or a folder (ending with /) with everything in it */
                                path: string;
                                reason: string;
                            }[];
                            warnings: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                field: string;
                                message: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.import": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/gzip": Blob;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "imported": [],
                     *         "skipped": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            imported: {
                                /** @enum {string} */
                                store: "appstore" | "playstore";
                                locale: string;
                                slotType: string;
                                items: number;
                            }[];
                            skipped: {
                                path: string;
                                reason: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "media.upload": {
        parameters: {
            query?: {
                fileName?: string;
                /** @description A custom product page's id (App Store, design.md §18); absent: the default product page */
                productPage?: string;
            };
            header?: never;
            path: {
                projectId: string;
                store: "appstore" | "playstore";
                /** @description The store's own code */
                locale: string;
                /** @description App Store: a screenshot display type (APP_IPHONE_67, ...) or PREVIEW_<previewType> (PREVIEW_IPHONE_67, ...); Google Play: phoneScreenshots, sevenInchScreenshots, tenInchScreenshots, tvScreenshots, wearScreenshots, icon, featureGraphic, tvBanner */
                slotType: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "image/png": Blob;
                "image/jpeg": Blob;
                "video/mp4": Blob;
                "video/quicktime": Blob;
                "video/x-m4v": Blob;
                "application/octet-stream": Blob;
                "multipart/form-data": Blob;
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "id": "med_yxwsk63s6n1gt03smc83fde7cm",
                     *         "sha256": "5d8ab933400721ed498b0965105baedf2e1aace388c47e4716f96e6c6cc4de24",
                     *         "md5": "c8d762819c28ac92d9223ebfee7e2178",
                     *         "kind": "image",
                     *         "contentType": "image/png",
                     *         "bytes": 4272,
                     *         "width": 320,
                     *         "height": 640,
                     *         "durationMs": null,
                     *         "fileName": "shot.png",
                     *         "position": 1,
                     *         "url": "/api/v1/media/5d8ab933400721ed498b0965105baedf2e1aace388c47e4716f96e6c6cc4de24",
                     *         "thumbnailUrl": "/api/v1/media/5d8ab933400721ed498b0965105baedf2e1aace388c47e4716f96e6c6cc4de24?thumb=1",
                     *         "replaced": null,
                     *         "notVerified": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            sha256: string;
                            /** @description MD5 hex: App Store Connect's sourceFileChecksum */
                            md5: string;
                            /** @enum {string} */
                            kind: "image" | "video";
                            contentType: string;
                            bytes: number;
                            width: number | null;
                            height: number | null;
                            durationMs: number | null;
                            fileName: string;
                            /** @description 1-based place in the slot */
                            position: number;
                            url: string;
                            thumbnailUrl: string | null;
                            /** @description The item a single-image slot held before */
                            replaced: string | null;
                            /** @description Rules that could not be checked from the bytes (e.g. a video whose duration is not readable) */
                            notVerified: string[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.invites.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                inviteId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "inviteId": "inv_cd726ke7kx3n556m8s356dgb8m",
                     *         "organizationName": "Org 1",
                     *         "email": "live@example.com",
                     *         "role": "viewer",
                     *         "expiresAt": "2026-12-05T14:55:50.175Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            inviteId: string;
                            organizationName: string;
                            email: string;
                            /** @enum {string} */
                            role: "admin" | "member" | "viewer";
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            expiresAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            404: components["responses"]["Error404"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.invites.accept": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                inviteId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Live"
                 *     }
                 */
                "application/json": {
                    /** @description 1..200 characters on one line; surrounding whitespace is trimmed */
                    name: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "member": {
                     *           "id": "mem_ms50xad7ype82xa6506e2s2nv4",
                     *           "email": "live@example.com",
                     *           "name": "Live",
                     *           "role": "viewer",
                     *           "status": "active",
                     *           "lastActive": null,
                     *           "joinedAt": "2026-11-28T14:55:50.188Z",
                     *           "access": {
                     *             "projects": "all",
                     *             "locales": "all",
                     *             "approve": false
                     *           }
                     *         },
                     *         "apiKey": "amk_EXAMPLE",
                     *         "key": {
                     *           "id": "key_g59nj5h25z76eqvmky3ccxv9a0",
                     *           "name": "First key",
                     *           "memberId": "mem_ms50xad7ype82xa6506e2s2nv4",
                     *           "prefix": "amk_utm9rW_V",
                     *           "createdAt": "2026-11-28T14:55:50.190Z",
                     *           "lastUsedAt": null,
                     *           "expiresAt": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            member: {
                                id: string;
                                email: string;
                                name: string;
                                /** @enum {string} */
                                role: "admin" | "member" | "viewer";
                                /** @enum {string} */
                                status: "active";
                                lastActive: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                joinedAt: string;
                                access: {
                                    /** @description "all", or the ids of the projects the member sees */
                                    projects: "all" | string[];
                                    /** @description "all", or the locale codes the member may change */
                                    locales: "all" | string[];
                                    /** @description May approve changes whose projects and locales are all in scope */
                                    approve: boolean;
                                };
                            };
                            apiKey: string;
                            key: {
                                id: string;
                                name: string;
                                memberId: string;
                                /** @description First characters of the secret */
                                prefix: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                lastUsedAt: string | null;
                                expiresAt: string | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.session.get": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "member": {
                     *           "id": "mem_tktj1gj0btnbef7gs06yh477f0",
                     *           "email": "admin1-857b48@example.com",
                     *           "name": "Admin",
                     *           "role": "admin",
                     *           "status": "active",
                     *           "lastActive": "2026-11-28T14:55:41.985Z",
                     *           "joinedAt": "2026-11-28T14:55:41.973Z",
                     *           "access": {
                     *             "projects": "all",
                     *             "locales": "all",
                     *             "approve": false
                     *           }
                     *         },
                     *         "organization": {
                     *           "id": "org_mrmp4m49hed3xqtzvfqbcv8jq4",
                     *           "name": "New name",
                     *           "plan": "enterprise"
                     *         },
                     *         "role": "admin",
                     *         "sessionId": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            member: {
                                id: string;
                                email: string;
                                name: string;
                                /** @enum {string} */
                                role: "admin" | "member" | "viewer";
                                /** @enum {string} */
                                status: "active";
                                lastActive: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                joinedAt: string;
                                access: {
                                    /** @description "all", or the ids of the projects the member sees */
                                    projects: "all" | string[];
                                    /** @description "all", or the locale codes the member may change */
                                    locales: "all" | string[];
                                    /** @description May approve changes whose projects and locales are all in scope */
                                    approve: boolean;
                                };
                            };
                            organization: {
                                id: string;
                                name: string;
                                plan: string;
                            };
                            /** @enum {string} */
                            role: "admin" | "member" | "viewer";
                            sessionId: string | null;
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.session.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "apiKey": "amk_EXAMPLE"
                 *     }
                 */
                "application/json": {
                    apiKey: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "sessionId": "ses_xmwekmnafevfk3jephtgw9gw5c",
                     *         "expiresAt": "2026-12-28T14:55:50.217Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        /** @description The cookie is set. */
                        data: {
                            sessionId: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            expiresAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.session.delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "signedOut": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {boolean} */
                            signedOut: true;
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.signInLinks.redeem": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "sessionId": "ses_deq6r4va9bdme7yfvptjrvck50",
                     *         "expiresAt": "2026-12-28T14:55:50.221Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        /** @description The cookie is set. */
                        data: {
                            sessionId: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            expiresAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.passkeys.authenticationOptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "challengeId": "wch_7ce2q00ssm4wxv9sdxa66b5y1r",
                     *         "options": {
                     *           "challenge": "GBB0RAPG9EyJYrI7-B2beVviClHsHVFPFGYj_amL4Rc",
                     *           "rpId": "appmeta.test",
                     *           "timeout": 60000,
                     *           "userVerification": "preferred"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            challengeId: string;
                            options: {
                                challenge: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.passkeys.authenticate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    challengeId: string;
                    response: {
                        id: string;
                        rawId: string;
                        type: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        /** @description The cookie is set. */
                        data: {
                            sessionId: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            expiresAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.sessions.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "sessions": [
                     *           {
                     *             "id": "ses_jsx6d8j3tywspyvgy7jx1z5hn4",
                     *             "method": "api-key",
                     *             "userAgent": "lightMyRequest",
                     *             "createdAt": "2026-11-28T14:55:45.237Z",
                     *             "lastSeenAt": "2026-11-28T14:55:45.237Z",
                     *             "expiresAt": "2026-12-28T14:55:45.237Z",
                     *             "current": false
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            sessions: {
                                id: string;
                                /** @enum {string} */
                                method: "api-key" | "sign-in-link" | "passkey" | "invite";
                                userAgent: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                lastSeenAt: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                expiresAt: string;
                                /** @description The session of this request */
                                current: boolean;
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.sessions.deleteAll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "signedOut": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {boolean} */
                            signedOut: true;
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.sessions.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "signedOut": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {boolean} */
                            signedOut: true;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.signInLinks.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "memberId": "mem_scd0g83p5vxn8kpbc9e6pxw094"
                 *     }
                 */
                "application/json": {
                    memberId: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "url": "http://appmeta.test/sign-in/asl_lsmzQ2GChnCd2X97TROPSTk1-JhpS66MwVa9nxIXu9o",
                     *         "memberId": "mem_scd0g83p5vxn8kpbc9e6pxw094",
                     *         "expiresAt": "2026-11-28T15:10:46.052Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            url: string;
                            memberId: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            expiresAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.passkeys.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "passkeys": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            passkeys: {
                                id: string;
                                name: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601 UTC with milliseconds
                                 */
                                createdAt: string;
                                lastUsedAt: string | null;
                            }[];
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.passkeys.registrationOptions": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "data": {
                     *         "challenge": "JjeB7vKl0YH6KMTpHcAX-J_g4C0Ao2sPMmnl932j6jU",
                     *         "rp": {
                     *           "name": "appmeta",
                     *           "id": "appmeta.test"
                     *         },
                     *         "user": {
                     *           "id": "bWVtX3RrdGoxZ2owYnRuYmVmN2dzMDZ5aDQ3N2Yw",
                     *           "name": "admin1-857b48@example.com",
                     *           "displayName": "Admin"
                     *         },
                     *         "pubKeyCredParams": [
                     *           {
                     *             "alg": -8,
                     *             "type": "public-key"
                     *           },
                     *           {
                     *             "alg": -7,
                     *             "type": "public-key"
                     *           }
                     *         ],
                     *         "timeout": 60000,
                     *         "attestation": "none",
                     *         "excludeCredentials": [],
                     *         "authenticatorSelection": {
                     *           "residentKey": "required",
                     *           "userVerification": "preferred",
                     *           "requireResidentKey": true
                     *         },
                     *         "extensions": {
                     *           "credProps": true
                     *         },
                     *         "hints": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            challenge: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.passkeys.register": {
        parameters: {
            query?: never;
            header?: {
                /** @description Send the same key again with the same request within 24 h to get the first response replayed (`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or the session's member): another caller's identical key is unrelated; a replay checks the caller's current role. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    response: {
                        id: string;
                        rawId: string;
                        type: string;
                    } & {
                        [key: string]: unknown;
                    };
                    /** @description 1..200 characters on one line; surrounding whitespace is trimmed */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            id: string;
                            name: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601 UTC with milliseconds
                             */
                            createdAt: string;
                            lastUsedAt: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            409: components["responses"]["Error409"];
            413: components["responses"]["Error413"];
            415: components["responses"]["Error415"];
            422: components["responses"]["Error422"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    "dashboard.passkeys.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                passkeyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: {
                            /** @enum {boolean} */
                            removed: true;
                        };
                    };
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            409: components["responses"]["Error409"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
}
