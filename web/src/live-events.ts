import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { EVENT_TYPES } from '../../src/shared/events';

/**
 * Keeps what the dashboard shows current while others work: the organization's live event stream
 * (GET /api/v1/events, the session cookie signs it in) marks the queries an event touches as
 * stale, so they are read again. The browser reconnects by itself and resumes with Last-Event-ID.
 * Drafts in an editor are the person's own and are never replaced.
 */
export function useLiveEvents(memberId: string | undefined): void {
  const client = useQueryClient();
  useEffect(() => {
    if (memberId === undefined) return;
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource('/api/v1/events');
    const onEvent = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as {
        type: string;
        data: { projectId?: string; memberId?: string };
      };
      const projectId = event.data.projectId;
      if (event.type === 'member.removed' && event.data.memberId === memberId) {
        // This person was removed: their session has ended, and reading it again says so.
        source.close();
        void client.invalidateQueries();
      } else if (projectId !== undefined) {
        void client.invalidateQueries({
          predicate: (query) => query.queryKey.includes(projectId) || query.queryKey[0] === 'projects',
        });
      } else if (event.type.startsWith('member.')) {
        void client.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'session' });
      }
    };

    for (const type of EVENT_TYPES) source.addEventListener(type, onEvent);
    return () => source.close();
  }, [client, memberId]);
}
