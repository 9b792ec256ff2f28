/** Scheduled changes (design.md §20), shown in the operator's time zone unless told another. */
import type { Command } from 'commander';
import type { Schedule } from '../../modules/schedules/index.js';
import { formatInZone, isTimeZone } from '../../shared/time-zones.js';
import { emit, plural, withProject, type Output } from '../command-kit.js';

const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

function zoneOption(zone: string | undefined): string {
  const chosen = zone ?? localZone();
  if (!isTimeZone(chosen)) throw new Error(`--time-zone: "${chosen}" is not an IANA time zone`);
  return chosen;
}

function line(schedule: Schedule, zone: string): string {
  const what =
    schedule.kind === 'release'
      ? `${schedule.release!.store} ${schedule.release!.action}`
      : `push ${plural(schedule.summary?.changeCount ?? 0, 'text')}` +
        (schedule.revertAt === null ? '' : `, reverts ${formatInZone(schedule.revertAt, zone)}`);
  return (
    `${schedule.id}  ${formatInZone(schedule.at, zone)}  ${schedule.status}  ${what}` +
    (schedule.reason === null ? '' : `  (${schedule.reason})`)
  );
}

export function schedulesCommands(program: Command, output: () => Output): void {
  const schedules = program
    .command('schedules')
    .description('pushes and release controls at a time; campaigns that revert');
  schedules
    .command('list')
    .description("the project's schedules by time, in your time zone")
    .requiredOption('--project <id>', 'project id')
    .option('--status <list>', 'comma-separated statuses, e.g. scheduled,live')
    .option('--time-zone <zone>', 'IANA zone to show times in (default: this machine’s)')
    .action(async (options: { project: string; status?: string; timeZone?: string }) => {
      const zone = zoneOption(options.timeZone);
      const listed = await withProject(options.project, (ctx, services) =>
        services.schedules.list(
          ctx,
          options.project,
          options.status === undefined ? {} : { status: options.status.split(',') },
          { limit: 100, offset: 0 },
        ),
      );
      emit(output(), listed, [
        ...(listed.schedules.length === 0 ? ['No schedules'] : listed.schedules.map((s) => line(s, zone))),
      ]);
    });
  schedules
    .command('create')
    .description('schedules the pending diff (by its hash) or a release control at a time')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--at <time>', 'e.g. 2027-03-28T09:00 (in --time-zone) or 2027-03-28T09:00:00+02:00')
    .option('--hash <hash>', 'the diff hash to push (appmeta reads it from GET .../diff)')
    .option('--release <json>', 'a release control, e.g. {"store":"appstore","action":"pausePhasedRelease"}')
    .option('--revert-at <time>', 'a campaign: when the texts it pushed go back')
    .option('--time-zone <zone>', 'IANA zone of wall-clock times (default: this machine’s)')
    .option('--note <text>', 'what it is for')
    .action(
      async (options: {
        project: string;
        at: string;
        hash?: string;
        release?: string;
        revertAt?: string;
        timeZone?: string;
        note?: string;
      }) => {
        const zone = zoneOption(options.timeZone);
        let release: { store: string; action: string } | undefined;
        if (options.release !== undefined) {
          try {
            release = JSON.parse(options.release) as { store: string; action: string };
          } catch {
            throw new Error('--release: not JSON, e.g. {"store":"appstore","action":"pausePhasedRelease"}');
          }
        }
        const created = await withProject(options.project, (ctx, services) =>
          services.schedules.create(ctx, options.project, {
            at: options.at,
            timeZone: zone,
            ...(options.hash !== undefined && { hash: options.hash }),
            ...(release !== undefined && { release }),
            ...(options.revertAt !== undefined && { revertAt: options.revertAt }),
            ...(options.note !== undefined && { note: options.note }),
          }),
        );
        emit(output(), created, [
          `Scheduled ${line(created.schedule, zone)}`,
          ...(created.approval !== null && !created.approval.approved && created.approval.required
            ? ['Not approved yet: it holds at its time unless an admin approves this diff first']
            : []),
        ]);
      },
    );
  schedules
    .command('cancel')
    .description('cancels a schedule that has not run (or a live campaign’s revert)')
    .requiredOption('--project <id>', 'project id')
    .argument('<scheduleId>', 'sch_...')
    .action(async (scheduleId: string, options: { project: string }) => {
      const cancelled = await withProject(options.project, (ctx, services) =>
        services.schedules.cancel(ctx, options.project, scheduleId),
      );
      emit(output(), { schedule: cancelled }, [`${cancelled.id} ${cancelled.status}`]);
    });
}
