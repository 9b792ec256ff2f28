/**
 * The review loop's actions (design.md §15): ask for an approval, approve, preview a push, push in
 * the background. Each refreshes what it changes; a page calls these instead of writing a mutation.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, synchronous, unwrap } from './client';
import { keys } from './keys';

export const useAskForApproval = (projectId: string) => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (note: string) =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/approval-requests', {
          params: { path: { projectId } },
          body: note.trim() === '' ? {} : { note },
        }),
      ),
    onSettled: () => client.invalidateQueries({ queryKey: keys.approvalRequests(projectId) }),
  });
};

export const useApprove = (projectId: string, onChanged: () => unknown) => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (hash: string) =>
      unwrap(
        api.POST('/api/v1/projects/{projectId}/approvals', {
          params: { path: { projectId } },
          body: { hash },
        }),
      ),
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: keys.approvalRequests(projectId) });
      return onChanged();
    },
  });
};

/** What a push would write, per store and kind: the confirmation names it. */
export const usePushPreview = (projectId: string) =>
  useMutation({
    mutationFn: async (locales?: string[]) => {
      const preview = synchronous(
        await unwrap(
          api.POST('/api/v1/projects/{projectId}/push', {
            params: { path: { projectId } },
            body: { dryRun: true, ...(locales !== undefined && { locales }) },
          }),
        ),
      );
      if (!('dryRun' in preview)) throw new Error('The server pushed instead of previewing');
      return preview;
    },
  });

/** Starts a push in the background (`Prefer: respond-async`); answers its operation's id. */
export const useStartPush = (projectId: string) =>
  useMutation({
    mutationFn: async (locales?: string[]) => {
      const answer = await unwrap(
        api.POST('/api/v1/projects/{projectId}/push', {
          params: { path: { projectId }, header: { prefer: 'respond-async' } },
          body: locales === undefined ? {} : { locales },
        }),
      );
      if (!('operation' in answer)) throw new Error('The server ran the push at once instead of queuing it');
      return answer.operation.id;
    },
  });
