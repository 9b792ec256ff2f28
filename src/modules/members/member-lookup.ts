import type { Executor } from '../../db/database.js';
import { AppError, invalidField } from '../../errors.js';
import { normalizeEmail } from './member.js';
import { membersRepository as members } from './members.repository.js';

/**
 * The member an operator names by e-mail (CLI key create, login-link): in the organization given,
 * or in the only one the address belongs to — several are a 400 listing them, so the operator
 * names one. An unknown address is 404 naming it (and the organization).
 */
export async function memberByEmail(
  db: Executor,
  rawEmail: string,
  organizationId?: string,
): Promise<{ id: string; organizationId: string }> {
  const email = normalizeEmail(rawEmail);
  if (email === null) throw invalidField('email', 'must be an e-mail address');
  if (organizationId !== undefined) {
    const member = await members.findByEmail(db, organizationId, email);
    if (member === undefined) {
      throw new AppError('NOT_FOUND', `No member with the e-mail ${email} in organization ${organizationId}`);
    }
    return { id: member.id, organizationId };
  }
  const found = await members.findByEmailAnywhere(db, email);
  if (found.length === 0) throw new AppError('NOT_FOUND', `No member with the e-mail ${email}`);
  if (found.length > 1) {
    const organizations = found.map((m) => m.organization_id).join(', ');
    throw invalidField(
      'organizationId',
      `${email} is a member of several organizations (${organizations}): name one`,
    );
  }
  return { id: found[0]!.id, organizationId: found[0]!.organization_id };
}
