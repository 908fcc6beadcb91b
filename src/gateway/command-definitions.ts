/** The slash commands the bot registers (Discord application command JSON). */

const USER_OR_CODE = [
  { type: 6, name: 'user', description: 'The member', required: false },
  { type: 3, name: 'code', description: 'The 4-character code', required: false, min_length: 4, max_length: 4 },
]

/** Every command, as registered. */
export const COMMAND_DEFINITIONS = [
  { name: 'code', description: 'Get your private code to link your game account', type: 1, dm_permission: false },
  { name: 'pause', description: 'Hide your activity from games (they see "Detection Paused")', type: 1, dm_permission: false },
  { name: 'resume', description: 'Show your activity in games again', type: 1, dm_permission: false },
  { name: 'unlink', description: 'Remove the link to your game account and retire your code', type: 1, dm_permission: false },
  {
    name: 'staff',
    description: 'Staff tools for codes',
    type: 1,
    dm_permission: false,
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
    ],
  },
] as const

/** Custom id prefix of the "This wasn't me" button. */
export const NOT_ME_PREFIX = 'notme:'
