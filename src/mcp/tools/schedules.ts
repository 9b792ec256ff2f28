/** Scheduled changes and release controls (design.md §20). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RequestContext } from '../../modules/access/index.js';
import { APP_STORE_ACTIONS, PLAY_ACTIONS } from '../../modules/releases/index.js';
import type { Services } from '../../services.js';
import { paged, run, READ, WRITE, projectId } from '../tool-kit.js';

const release = z.object({
  store: z.enum(['appstore', 'playstore']),
  action: z
    .enum([...APP_STORE_ACTIONS, ...PLAY_ACTIONS])
    .describe(
      'App Store: setReleaseType, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease; ' +
        'Google Play: setRolloutFraction, haltRollout, resumeRollout, completeRollout',
    ),
  releaseType: z.enum(['MANUAL', 'AFTER_APPROVAL', 'SCHEDULED']).optional(),
  earliestReleaseDate: z
    .string()
    .max(40)
    .optional()
    .describe('With SCHEDULED: a time on the hour with an offset'),
  track: z.string().max(100).optional().describe('Google Play track: production, beta, …'),
  fraction: z.number().optional().describe('setRolloutFraction: share of users, 0 < f < 1'),
});

export function scheduleTools(server: McpServer, ctx: RequestContext, services: Services): void {
  const { schedules, releaseControls } = services;

  server.registerTool(
    'list_schedules',
    {
      title: "List a project's scheduled changes",
      description:
        'By time: scheduled, running, live (a campaign before its revert), completed, held (with the reason), failed, ' +
        'cancelled. Times in UTC, with atLocal in the zone each was entered in.',
      inputSchema: {
        projectId,
        status: z.array(z.string().max(20)).max(8).optional(),
        from: z.string().max(40).optional(),
        to: z.string().max(40).optional(),
      },
      annotations: READ,
    },
    ({ projectId: id, status, from, to }) =>
      run(ctx, () =>
        paged({ limit: 100 }, (page) =>
          schedules.list(
            ctx,
            id,
            {
              ...(status !== undefined && { status }),
              ...(from !== undefined && { from }),
              ...(to !== undefined && { to }),
            },
            page,
          ),
        ),
      ),
  );

  server.registerTool(
    'schedule_change',
    {
      title: 'Schedule a push of the current diff, or a release control, at a time',
      description:
        'hash: the diff hash from get_diff (it pushes exactly that changeset, once, at `at`; if the changes or the ' +
        'store moved meanwhile, or an approval is missing, it ends held with the reason). Or release: a release ' +
        'control. at: 2027-03-28T09:00:00+02:00, or 2027-03-28T09:00 with timeZone (IANA). revertAt: a campaign — ' +
        'the listing texts go back then.',
      inputSchema: {
        projectId,
        at: z.string().max(40),
        timeZone: z.string().max(64).optional(),
        hash: z.string().max(128).optional(),
        release: release.optional(),
        revertAt: z.string().max(40).optional(),
        note: z.string().max(500).optional(),
      },
      annotations: WRITE,
    },
    ({ projectId: id, ...input }) => run(ctx, () => schedules.create(ctx, id, input)),
  );

  server.registerTool(
    'cancel_schedule',
    {
      title: "Cancel a schedule that has not run (or a live campaign's revert)",
      description:
        'A scheduled push or release control that has not run is cancelled; a live campaign keeps its texts and ' +
        'does not revert. A running or ended schedule is refused (cancel its operation instead).',
      inputSchema: { projectId, scheduleId: z.string().max(64) },
      annotations: { ...WRITE, destructiveHint: true },
    },
    ({ projectId: id, scheduleId }) =>
      run(ctx, async () => ({ schedule: await schedules.cancel(ctx, id, scheduleId) })),
  );

  server.registerTool(
    'get_release_controls',
    {
      title: 'Read release type, phased release and staged rollouts from the stores',
      description:
        "Asks the stores now: the App Store's newest version (release type, earliest release date, phased release " +
        "state and day) and Google Play's releases that are rolling out, halted or complete, per track.",
      inputSchema: { projectId },
      annotations: READ,
    },
    ({ projectId: id }) => run(ctx, () => releaseControls.getControls(ctx, id)),
  );

  server.registerTool(
    'apply_release_control',
    {
      title: 'Apply a release control now',
      description:
        "Pause/resume/complete the App Store phased release, set the version's release type, raise/halt/resume/" +
        'complete a Google Play staged rollout. The store refusing (its state does not allow it) comes back in its words.',
      inputSchema: { projectId, ...release.shape },
      annotations: WRITE,
    },
    ({ projectId: id, ...input }) => run(ctx, () => releaseControls.applyControl(ctx, id, input)),
  );
}
