/**
 * The slash commands the bot registers (Discord application command JSON), and which of them each guild gets:
 * `/staff` only in the staff guilds (STAFF_GUILD_IDS), hidden from members without Manage Server until a server
 * admin grants it to a role in the guild's integration settings.
 */

const USER_OR_CODE = [
  { type: 6, name: 'user', description: 'The member', required: false },
  { type: 3, name: 'code', description: 'The 4-character code', required: false, min_length: 4, max_length: 4 },
]

/** Manage Server (1 << 5), as Discord's `default_member_permissions` bitfield string. */
export const STAFF_DEFAULT_PERMISSIONS = '32'

/** Interaction context 0: guild channels only (the replacement of the deprecated `dm_permission: false`). */
const GUILD_ONLY = [0]

/** The commands every member of every guild gets. */
export const USER_COMMANDS = [
  { name: 'code', description: 'Get your private code to link your game account', type: 1, dm_permission: false },
  { name: 'pause', description: 'Hide your activity from games (they see "Detection Paused")', type: 1, dm_permission: false },
  { name: 'resume', description: 'Show your activity in games again', type: 1, dm_permission: false },
  { name: 'unlink', description: 'Remove the link to your game account and retire your code', type: 1, dm_permission: false },
  { name: 'mydata', description: 'See what the service keeps about you, with a JSON copy', type: 1, dm_permission: false },
  { name: 'forget', description: 'Erase everything the service keeps about you (asks first)', type: 1, dm_permission: false },
  {
    name: 'share',
    description: 'Choose what games see of your activity',
    type: 1,
    dm_permission: false,
    options: [
      {
        type: 3,
        name: 'show',
        description: 'What games may see',
        required: true,
        choices: [
          { name: 'everything (games, music, videos, streams)', value: 'everything' },
          { name: 'games only (Playing, Competing)', value: 'games' },
          { name: 'media only (Listening, Watching, Streaming)', value: 'media' },
          { name: 'nothing (games see "No activity detected")', value: 'nothing' },
        ],
      },
    ],
  },
] as const

/** `/staff`: registered only in the staff guilds. */
export const STAFF_COMMAND = {
  name: 'staff',
  description: 'Staff tools for codes',
  type: 1,
  default_member_permissions: STAFF_DEFAULT_PERMISSIONS,
  contexts: GUILD_ONLY,
  options: [
    { type: 1, name: 'ban', description: 'Ban a code', options: USER_OR_CODE },
    { type: 1, name: 'unban', description: 'Unban a code', options: USER_OR_CODE },
    { type: 1, name: 'reset', description: 'Unlink a code so its user can bind again (clears an invalidation)', options: USER_OR_CODE },
    { type: 1, name: 'rotate', description: "Retire a user's code and issue a new one", options: USER_OR_CODE },
    { type: 1, name: 'info', description: 'Show a code and its infractions', options: USER_OR_CODE },
    {
      type: 1,
      name: 'watch',
      description: 'Put a game account on the safety watchlist',
      options: [
        { type: 4, name: 'platform_user_id', description: 'The game account id', required: true, min_value: 1 },
        { type: 3, name: 'reason', description: 'Why', required: false, max_length: 200 },
      ],
    },
    {
      type: 1,
      name: 'unwatch',
      description: 'Take a game account off the safety watchlist',
      options: [{ type: 4, name: 'platform_user_id', description: 'The game account id', required: true, min_value: 1 }],
    },
    {
      type: 1,
      name: 'forget',
      description: "Erase a member's data at their request (as their /forget does); it cannot be undone",
      options: [
        { type: 6, name: 'user', description: 'The member who asked', required: true },
        { type: 5, name: 'confirm', description: 'True to erase', required: true },
      ],
    },
    {
      type: 1,
      name: 'pardon',
      description: 'Pardon an infraction: it stays in the log but no longer counts for the safety check',
      options: [
        { type: 4, name: 'infraction', description: 'The infraction id (# in /staff info)', required: true, min_value: 1 },
        { type: 3, name: 'reason', description: 'Why', required: false, max_length: 200 },
      ],
    },
  ],
} as const

/** The commands one guild gets: the user commands, plus `/staff` in a staff guild (with global user commands, only `/staff`). */
export function guildCommands(guildId: string, staffGuildIds: readonly string[], scope: 'guild' | 'global'): object[] {
  const staff = staffGuildIds.includes(guildId) ? [STAFF_COMMAND] : []
  return scope === 'global' ? staff : [...USER_COMMANDS, ...staff]
}

/** Custom id prefix of `/forget`'s buttons: `forget:yes:USERID` erases, `forget:no:USERID` cancels. */
export const FORGET_PREFIX = 'forget:'

/** The buttons under `/forget`'s question, for the user `userId` only (message components: an action row of two). */
export function forgetButtons(userId: string): object[] {
  return [
    {
      type: 1,
      components: [
        { type: 2, style: 4, label: 'Erase my data', custom_id: `${FORGET_PREFIX}yes:${userId}` },
        { type: 2, style: 2, label: 'Cancel', custom_id: `${FORGET_PREFIX}no:${userId}` },
      ],
    },
  ]
}

/** Custom id prefix of the "This wasn't me" button. */
export const NOT_ME_PREFIX = 'notme:'
