/** Organizations, their members, API keys and sign-in links, as the operator. */
import type { Command } from 'commander';
import { AppError } from '../../errors.js';
import { emit, operatorName, plural, withOrganization, withServices, type Output } from '../command-kit.js';

/** `--member ID`, or `--org ID --email E`; anything else is a usage error naming the flags. */
function operatorKeyInput(options: { member?: string; org?: string; email?: string; name?: string }) {
  const name = options.name === undefined ? {} : { name: options.name };
  if (options.member !== undefined && options.org === undefined && options.email === undefined) {
    return { memberId: options.member, ...name };
  }
  if (options.member === undefined && options.org !== undefined && options.email !== undefined) {
    return { organizationId: options.org, email: options.email, ...name };
  }
  throw new AppError(
    'INVALID_REQUEST',
    'Name the member: --member MEMBER_ID, or --org ORG_ID with --email E',
  );
}

export function organizationCommands(program: Command, output: () => Output): void {
  const org = program.command('org').description('organizations');
  org
    .command('create')
    .description('create an organization with its first admin and an API key for that admin')
    .requiredOption('--name <name>', 'organization name')
    .requiredOption('--admin-email <email>', "the first admin's e-mail")
    .option('--admin-name <name>', "the first admin's name")
    .option('--plan <plan>', 'free | pro | enterprise', 'free')
    .option('--allow-duplicate-name', 'create it even if an organization of that name exists')
    .action(
      async (options: {
        name: string;
        adminEmail: string;
        adminName?: string;
        plan: string;
        allowDuplicateName?: boolean;
      }) => {
        const created = await withServices(
          (services) => services.organizations.create(options, operatorName()),
          {
            name: '--name',
            adminEmail: '--admin-email',
            adminName: '--admin-name',
            plan: '--plan',
            allowDuplicateName: '--allow-duplicate-name',
          },
        );
        emit(
          output(),
          { organization: created.organization, member: created.member, apiKey: created.apiKey },
          [
            `Organization ${created.organization.id} "${created.organization.name}" (${created.organization.plan})`,
            `Admin ${created.member.id} <${created.member.email}>`,
            `API key (shown once): ${created.apiKey}`,
          ],
        );
      },
    );

  org
    .command('list')
    .description('every organization: id, name, plan, members')
    .action(async () => {
      const organizations = await withServices((services) => services.organizations.list());
      emit(
        output(),
        { organizations },
        organizations.length === 0
          ? ['No organizations.']
          : organizations.map(
              (o) =>
                `${o.id}  ${o.plan.padEnd(10)} ${plural(o.memberCount, 'member').padStart(11)}  ${o.name}`,
            ),
      );
    });

  org
    .command('set-plan')
    .description("change an organization's plan (effective on its next request)")
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--plan <plan>', 'free | pro | enterprise')
    .action(async (options: { org: string; plan: string }) => {
      const organization = await withServices(
        (services) => services.organizations.setPlan(options.org, options.plan, operatorName()),
        { plan: '--plan', Organization: '--org' },
      );
      emit(output(), { organization }, [
        `Organization ${organization.id} is now on the ${organization.plan} plan.`,
      ]);
    });

  program
    .command('member')
    .description('members of an organization')
    .command('list')
    .description("an organization's members: id, e-mail, role")
    .requiredOption('--org <id>', 'organization id')
    .action(async (options: { org: string }) => {
      const members = await withOrganization(options.org, (ctx, services) => services.members.list(ctx));
      emit(
        output(),
        { members },
        members.map((m) => `${m.id}  ${m.role.padEnd(6)}  ${m.email}  (${m.name})`),
      );
    });

  program
    .command('key')
    .description('API keys')
    .command('create')
    .description(
      "create an API key for a member: by id, or by organization and e-mail (a lost admin's way back)",
    )
    .option('--member <id>', 'member id')
    .option('--org <id>', 'organization id (with --email)')
    .option('--email <email>', "the member's e-mail (with --org)")
    .option('--name <name>', 'key name')
    .action(async (options: { member?: string; org?: string; email?: string; name?: string }) => {
      const input = operatorKeyInput(options);
      const issued = await withServices(
        (services) => services.apiKeys.issueByOperator(input, operatorName()),
        { name: '--name', email: '--email', Member: '--member' },
      );
      emit(output(), { apiKey: issued.apiKey, key: issued.key }, [
        `Key ${issued.key.id} for member ${issued.key.memberId}`,
        `API key (shown once): ${issued.apiKey}`,
      ]);
    });

  program
    .command('login-link')
    .description('a one-time dashboard sign-in link for a member (15 minutes, single use)')
    .requiredOption('--email <email>', "the member's e-mail")
    .option('--org <id>', 'organization id (needed when the address is a member of several)')
    .action(async (options: { email: string; org?: string }) => {
      const link = await withServices(
        (services) =>
          services.sessions.createSignInLinkAsOperator(
            { email: options.email, ...(options.org !== undefined && { organizationId: options.org }) },
            operatorName(),
          ),
        { email: '--email', organizationId: '--org' },
      );
      emit(output(), link, [
        `Sign-in link for member ${link.memberId} (valid until ${link.expiresAt}, single use):`,
        link.url,
      ]);
    });
}
