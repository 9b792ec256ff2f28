/** The organization's name, approval rule and allowed e-mail domains. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { BusyButton, ErrorMessage, Section } from '../../ui';
import type { paths } from '../../api/schema';

/** The organization as GET /organization answers it. */
export type Org =
  paths['/api/v1/organization']['get']['responses'][200]['content']['application/json']['data'];

export function Settings({ org, admin }: { org: Org; admin: boolean }) {
  const client = useQueryClient();
  const [name, setName] = useState(org.name);
  const [requireApproval, setRequireApproval] = useState(org.settings.requireApproval);
  const [domains, setDomains] = useState(org.settings.allowedDomains.join(', '));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/organization', {
          body: {
            name,
            settings: {
              requireApproval,
              allowedDomains: domains
                .split(',')
                .map((d) => d.trim())
                .filter(Boolean),
            },
          },
        }),
      ),
    onSuccess: () => client.invalidateQueries(),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Section title="Settings">
      <form onSubmit={submit}>
        <fieldset disabled={!admin}>
          <label htmlFor="org-name">Organization name</label>
          <input
            id="org-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={200}
          />
          <label className="check">
            <input
              type="checkbox"
              checked={requireApproval}
              onChange={(e) => setRequireApproval(e.target.checked)}
            />
            Require an admin’s approval before a push
          </label>
          <label htmlFor="org-domains">Allowed e-mail domains (comma separated; empty: any)</label>
          <input id="org-domains" value={domains} onChange={(e) => setDomains(e.target.value)} />
          {admin && (
            <BusyButton type="submit" busy={save.isPending}>
              Save
            </BusyButton>
          )}
        </fieldset>
        {save.isSuccess && <p role="status">Saved.</p>}
        <ErrorMessage error={save.error} />
      </form>
    </Section>
  );
}
