/** What a store refused or a sync or push left out, each with its reason. */
export type Failure = {
  store: string;
  locale: string | null;
  field: string | null;
  error: { code: string; message: string };
};

export function Failures({ failures }: { failures: Failure[] }) {
  if (failures.length === 0) return null;
  return (
    <ul className="failures" aria-label="Failures">
      {failures.map((f, i) => (
        <li key={i}>
          {f.store}
          {f.locale && ` ${f.locale}`}
          {f.field && ` ${f.field}`}: {f.error.code} — {f.error.message}
        </li>
      ))}
    </ul>
  );
}
