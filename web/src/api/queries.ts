/**
 * The dashboard's reads of the organization, one hook per resource, each under its key from
 * keys.ts. Pages call these instead of writing a query: a resource is read the same way, and
 * cached under the same key, wherever it is shown.
 */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';

export const useOrganization = () =>
  useQuery({ queryKey: keys.organization(), queryFn: () => unwrap(api.GET('/api/v1/organization')) });

export const useMembers = () =>
  useQuery({ queryKey: keys.members(), queryFn: () => unwrap(api.GET('/api/v1/organization/members')) });

export const useInvites = () =>
  useQuery({ queryKey: keys.invites(), queryFn: () => unwrap(api.GET('/api/v1/organization/invites')) });

export const useApiKeys = () =>
  useQuery({ queryKey: keys.apiKeys(), queryFn: () => unwrap(api.GET('/api/v1/api-keys')) });

export const useCredentials = () =>
  useQuery({
    queryKey: keys.credentials(),
    queryFn: () => unwrap(api.GET('/api/v1/organization/credentials')),
  });

export const useAuditLog = (offset: number) =>
  useQuery({
    queryKey: keys.audit(offset),
    queryFn: () =>
      unwrap(api.GET('/api/v1/organization/audit-log', { params: { query: { limit: 20, offset } } })),
  });
