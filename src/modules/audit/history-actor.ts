/** Who made a change of a history (listing fields, media slots, release notes), as the API shows it. */
import { STORE_LABEL, type Store } from '../../shared/stores.js';

export interface HistoryActor {
  memberId: string | null;
  operator: string | null;
  /** The member's name (null once they left), the operator's label, or the store a sync read it from. */
  name: string | null;
}

/** The columns a history row keeps of its actor, with the member's name joined in. */
export interface HistoryActorRow {
  source: string;
  actor_member_id: string | null;
  actor_operator: string | null;
  actor_name: string | null;
}

export const historyActor = (row: HistoryActorRow, store: Store): HistoryActor => ({
  memberId: row.actor_member_id,
  operator: row.actor_operator,
  name: row.source === 'sync' ? STORE_LABEL[store] : (row.actor_name ?? row.actor_operator),
});
