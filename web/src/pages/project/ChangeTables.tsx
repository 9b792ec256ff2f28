/**
 * Every kind of pending change, as a reviewer reads it before approving or pushing (design.md
 * §15): counts per store and kind, text fields, screenshots and previews slot by slot with their
 * thumbnails before → after, and Google Play release notes.
 */
import { STORE_NAMES, type Store } from '../../listing-rules';
import type { Diff } from '../../api/queries';

type Counts = Diff['counts'];

const KINDS = [
  ['fields', 'Text fields'],
  ['media', 'Screenshot and preview slots'],
  ['releaseNotes', 'Release notes'],
  ['products', 'Purchase texts'],
  ['removedLocales', 'Locales removed'],
] as const;

/** How many changes of each kind, per store: the summary a confirmation names too. */
export function ChangeCounts({ counts, caption }: { counts: Counts; caption: string }) {
  const stores = Object.keys(counts) as Store[];
  if (stores.length === 0) return null;
  return (
    <table className="counts">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Store</th>
          {KINDS.map(([kind, label]) => (
            <th key={kind} scope="col">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {stores.map((store) => (
          <tr key={store}>
            <th scope="row">{STORE_NAMES[store]}</th>
            {KINDS.map(([kind]) => (
              <td key={kind}>{counts[store]?.[kind] ?? 0}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One sentence of what a push writes, e.g. "App Store: 2 text fields, 1 screenshot slot". */
export function countsSentence(counts: Counts): string {
  const parts = (Object.keys(counts) as Store[]).map((store) => {
    const c = counts[store]!;
    const kinds = [
      c.fields > 0 && `${c.fields} text field${c.fields === 1 ? '' : 's'}`,
      c.media > 0 && `${c.media} screenshot slot${c.media === 1 ? '' : 's'}`,
      c.releaseNotes > 0 && `${c.releaseNotes} release note${c.releaseNotes === 1 ? '' : 's'}`,
      c.products > 0 && `${c.products} purchase text${c.products === 1 ? '' : 's'}`,
      c.removedLocales > 0 && `${c.removedLocales} locale${c.removedLocales === 1 ? '' : 's'} removed`,
    ].filter(Boolean);
    return `${STORE_NAMES[store]}: ${kinds.join(', ')}`;
  });
  return parts.join(' · ');
}

function BeforeAfter({
  caption,
  rows,
  label,
}: {
  caption: string;
  label: string;
  rows: [string, { old: string | null; new: string | null }][];
}) {
  return (
    <table className="diff">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{label}</th>
          <th scope="col">In the store</th>
          <th scope="col">Here</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, change]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td className="old">{change.old ?? '—'}</td>
            <td className="new">{change.new ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function TextChanges({ stores }: { stores: Diff['stores'] }) {
  return (
    <>
      {Object.entries(stores).flatMap(([store, locales]) =>
        Object.entries(locales).map(([locale, fields]) => (
          <BeforeAfter
            key={`${store}-${locale}`}
            caption={`${STORE_NAMES[store as Store]} · ${locale}`}
            label="Field"
            rows={Object.entries(fields)}
          />
        )),
      )}
    </>
  );
}

export function ReleaseNoteChanges({ releaseNotes }: { releaseNotes: Diff['releaseNotes'] }) {
  return (
    <>
      {Object.entries(releaseNotes).flatMap(([track, releases]) =>
        Object.entries(releases).map(([versionCode, notes]) => (
          <BeforeAfter
            key={`notes-${track}-${versionCode}`}
            caption={`Google Play release notes · ${track} · version ${versionCode}`}
            label="Language"
            rows={Object.entries(notes)}
          />
        )),
      )}
    </>
  );
}

/** In-app purchase and subscription texts: per product and locale, each text before and after. */
export function ProductChanges({ products }: { products: Diff['products'] }) {
  return (
    <>
      {Object.entries(products).flatMap(([store, byProduct]) =>
        Object.entries(byProduct).flatMap(([productId, byLocale]) =>
          Object.entries(byLocale).map(([locale, fields]) => (
            <BeforeAfter
              key={`product-${store}-${productId}-${locale}`}
              caption={`${STORE_NAMES[store as Store]} · ${productId} · ${locale}`}
              label="Text"
              rows={Object.entries(fields)}
            />
          )),
        ),
      )}
    </>
  );
}

/** A file by its thumbnail (videos have none: their name stands in). */
function Thumb({ sha256, label }: { sha256: string; label: string }) {
  return (
    <img
      className="thumb"
      src={`/api/v1/media/${sha256}?thumb=1`}
      alt={`${label} (${sha256.slice(0, 8)})`}
      width={64}
      height={64}
      loading="lazy"
    />
  );
}

function Files({ shas, side, marked }: { shas: string[]; side: string; marked: string[] }) {
  if (shas.length === 0) return <span className="hint">none</span>;
  return (
    <ol className="thumbs" aria-label={`${side} files`}>
      {shas.map((sha, i) => (
        <li key={`${sha}-${i}`} className={marked.includes(sha) ? 'marked' : undefined}>
          <Thumb sha256={sha} label={`${side} ${i + 1}`} />
        </li>
      ))}
    </ol>
  );
}

/** Screenshot and preview slots whose files differ from the store's: before → after, in order. */
export function MediaChanges({ media }: { media: Diff['media'] }) {
  return (
    <>
      {Object.entries(media).flatMap(([store, locales]) =>
        Object.entries(locales).flatMap(([locale, slots]) =>
          Object.entries(slots).map(([slotType, change]) => (
            <table key={`${store}-${locale}-${slotType}`} className="diff media-diff">
              <caption>
                {STORE_NAMES[store as Store]} · {locale} · {slotType}
                {change.conflict !== undefined && ' (changed in the store too: left out of a push)'}
              </caption>
              <tbody>
                <tr>
                  <th scope="row">In the store</th>
                  <td>
                    <Files shas={change.old} side="Before" marked={change.removed} />
                  </td>
                </tr>
                <tr>
                  <th scope="row">Here</th>
                  <td>
                    <Files shas={change.new} side="After" marked={change.added} />
                  </td>
                </tr>
                <tr>
                  <th scope="row">Change</th>
                  <td>
                    {[
                      change.added.length > 0 && `${change.added.length} added`,
                      change.removed.length > 0 && `${change.removed.length} removed`,
                      change.reordered && 'reordered',
                    ]
                      .filter(Boolean)
                      .join(', ') || 'replaced'}
                  </td>
                </tr>
              </tbody>
            </table>
          )),
        ),
      )}
    </>
  );
}
