/**
 * Every `presence-link` command, declared once: name, summary, arguments and what runs. Dispatch, usage lines,
 * `--help` and the top-level help all come from this table (src/cli/dispatch.ts). Handlers load their module only
 * when they run, so `--help`, `--version` and command-line errors touch neither MySQL nor Redis.
 */
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../mysql/model/log-search.js'
import { QUEUE_ARGUMENT_TEXT } from '../queue/names.js'
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../retention/model/prune-plan.js'
import type { ArgsSpec } from './args.js'
import { TIME_ARGUMENT_TEXT } from './model/log-search-args.js'
import { adminCommand, type Command, type CommandGroup } from './command.js'

const admin = () => import('./admin-commands.js')
const delivery = () => import('./delivery-commands.js')
const jobs = () => import('./jobs-commands.js')
const push = () => import('./push-commands.js')

/** `presence-link sandbox`, typed for `src/sandbox.ts`, which parses its own arguments when run directly. */
export const SANDBOX_COMMAND = {
  name: 'sandbox',
  summary: 'the local fake of Discord and the Roblox users API',
  args: {
    flags: {
      port: { type: 'integer', value: 'N', min: 0, max: 65535, default: 8090, summary: 'port of the fake Discord, Roblox users API and control API; 0 picks a free one' },
      shards: { type: 'integer', value: 'N', min: 1, default: 1, summary: 'shards announced by GET /gateway/bot and used to route guilds' },
      host: { type: 'string', value: 'H', summary: 'interface to listen on (default 127.0.0.1)' },
      token: { type: 'string', value: 'T', summary: 'the only bot token accepted (default: any non-empty token)' },
      guild: { type: 'string', value: 'ID', summary: 'id of the default guild (default 100000000000000001)' },
    },
  },
} as const satisfies { name: string; summary: string; args: ArgsSpec }

const CATEGORY = { name: 'CATEGORY', summary: 'server, ingame or moderation' } as const
const CODE = { positionals: [{ name: 'CODE', summary: '4 characters A-Z or 0-9, in any case' }] } as const
const CHAT_USER = { flags: { 'chat-user': { type: 'string', value: 'ID', required: true, summary: 'Discord user id' } } } as const
const GUILD_ID = { positionals: [{ name: 'ID', summary: 'Discord guild id' }] } as const
const ROBLOX_USER_ID = { name: 'ROBLOX_USER_ID', summary: 'Roblox user id' } as const

const KEYS: CommandGroup = {
  kind: 'group',
  name: 'keys',
  summary: 'API keys of game servers',
  commands: [
    adminCommand({
      name: 'create',
      summary: 'create an API key; it is printed once, as the last line',
      args: { flags: { name: { type: 'string', value: 'NAME', required: true, summary: "the key's name: 1-64 letters, digits, _ . -" } } },
      run: async (ctx, { flags }) => (await admin()).createKeyCommand(ctx, flags.name),
    }),
    adminCommand({ name: 'list', summary: 'names and states of every key, never the secrets', args: {}, run: async (ctx) => (await admin()).listKeysCommand(ctx) }),
    adminCommand({
      name: 'revoke',
      summary: 'revoke the active key of that name; every front refuses it at once',
      args: { positionals: [{ name: 'NAME', summary: 'name of the key' }] },
      run: async (ctx, { positionals: [name] }) => (await admin()).revokeKeyCommand(ctx, name),
    }),
    adminCommand({
      name: 'usage',
      summary: 'requests per key, route and status over the last hour or day (429s included)',
      args: { flags: { since: { type: 'string', value: '1h|24h', default: '1h', summary: 'the window: the last hour (1h) or day (24h)' } } },
      run: async (ctx, { flags }) => (await import('./usage-commands.js')).keysUsageCommand(ctx, flags.since),
    }),
  ],
}

const PUSH_TARGET_FLAGS = {
  key: { type: 'string', value: 'NAME', required: true, summary: 'name of one of our API keys (keys list)' },
  universe: { type: 'string', value: 'ID', required: true, summary: 'Roblox universe id (Creator Dashboard, Copy Universe ID)' },
} as const

const PUSH: CommandGroup = {
  kind: 'group',
  name: 'push',
  summary: 'push into live Roblox servers through Open Cloud messaging',
  commands: [
    adminCommand({
      name: 'add',
      summary: "attach a universe and its Open Cloud key (scope universe-messaging-service:publish) to an API key; again to replace the key",
      args: {
        flags: {
          ...PUSH_TARGET_FLAGS,
          'open-cloud-key-file': { type: 'string', value: 'PATH', required: true, summary: 'file holding the Open Cloud API key (stored encrypted with PUSH_SECRET, never printed)' },
        },
      },
      run: async (ctx, { flags }) => (await push()).pushAddCommand(ctx, flags),
    }),
    adminCommand({ name: 'list', summary: 'every push target: API key, universe, the Open Cloud key masked', args: {}, run: async (ctx) => (await push()).pushListCommand(ctx) }),
    adminCommand({
      name: 'remove',
      summary: 'detach a universe from an API key: its servers get 404 push_target_not_found',
      args: { flags: PUSH_TARGET_FLAGS },
      run: async (ctx, { flags }) => (await push()).pushRemoveCommand(ctx, flags),
    }),
    adminCommand({
      name: 'test',
      summary: 'publish a test message with the stored key and say what Roblox answered',
      args: { flags: PUSH_TARGET_FLAGS },
      run: async (ctx, { flags }) => (await push()).pushTestCommand(ctx, flags),
    }),
  ],
}

const CODE_ACTIONS = [
  ['ban', 'ban the code: callbacks show the ban message'],
  ['unban', 'lift a ban'],
  ['pause', 'pause detection: callbacks show "Detection Paused"'],
  ['resume', 'resume detection'],
  ['reset', 'unlink the game account; the code stays live'],
  ['revoke', 'revoke the code for good'],
] as const

const CODES: CommandGroup = {
  kind: 'group',
  name: 'codes',
  summary: 'link codes: issue, inspect, moderate',
  commands: [
    adminCommand({
      name: 'issue',
      summary: "print the user's live code, or issue a new one",
      args: CHAT_USER,
      run: async (ctx, { flags }) => (await admin()).userCodeCommand(ctx, 'issue', flags['chat-user']),
    }),
    adminCommand({ name: 'show', summary: 'describe a code', args: CODE, run: async (ctx, { positionals: [code] }) => (await admin()).codeCommand(ctx, 'show', code) }),
    ...CODE_ACTIONS.map(([action, summary]) =>
      adminCommand({ name: action, summary, args: CODE, run: async (ctx, { positionals: [code] }) => (await admin()).codeCommand(ctx, action, code) }),
    ),
    adminCommand({
      name: 'rotate',
      summary: "revoke the user's live code and print a new one",
      args: CHAT_USER,
      run: async (ctx, { flags }) => (await admin()).userCodeCommand(ctx, 'rotate', flags['chat-user']),
    }),
  ],
}

const GUILDS: CommandGroup = {
  kind: 'group',
  name: 'guilds',
  summary: 'guilds whose audit events are logged (besides GUILD_WHITELIST)',
  commands: [
    adminCommand({ name: 'add', summary: 'whitelist a guild', args: GUILD_ID, run: async (ctx, { positionals: [id] }) => (await admin()).changeGuildCommand(ctx, 'add', id) }),
    adminCommand({ name: 'remove', summary: 'remove a guild from the whitelist', args: GUILD_ID, run: async (ctx, { positionals: [id] }) => (await admin()).changeGuildCommand(ctx, 'remove', id) }),
    adminCommand({
      name: 'list',
      summary: "whitelisted guilds: the running gateway's GUILD_WHITELIST, and those added here",
      args: {},
      run: async (ctx) => (await admin()).listGuildsCommand(ctx),
    }),
  ],
}

const DESTINATIONS: CommandGroup = {
  kind: 'group',
  name: 'destinations',
  summary: 'where each log category is delivered in Discord',
  commands: [
    adminCommand({
      name: 'set',
      summary: 'deliver a category to a channel or webhook, and enable it',
      args: { positionals: [CATEGORY, { name: 'TARGET', summary: 'a channel id or a webhook URL' }] },
      run: async (ctx, { positionals: [category, target] }) => (await delivery()).changeDestinationCommand(ctx, 'set', category, target),
    }),
    adminCommand({
      name: 'unset',
      summary: "stop delivering a category; its entries are stored, not delivered",
      args: { positionals: [CATEGORY] },
      run: async (ctx, { positionals: [category] }) => (await delivery()).changeDestinationCommand(ctx, 'unset', category, undefined),
    }),
    adminCommand({ name: 'list', summary: 'target (token hidden), state and delivery counts per category', args: {}, run: async (ctx) => (await delivery()).listDestinationsCommand(ctx) }),
    adminCommand({
      name: 'retry',
      summary: 're-enable a disabled destination; its pending entries go out in order',
      args: { positionals: [CATEGORY] },
      run: async (ctx, { positionals: [category] }) => (await delivery()).changeDestinationCommand(ctx, 'retry', category, undefined),
    }),
  ],
}

const LOG_SEARCH_FLAGS = {
  category: { type: 'string', value: 'CATEGORY', summary: `only this category: ${CATEGORY.summary}` },
  'event-type': { type: 'string', value: 'TYPE', summary: 'only this event type (any case)' },
  'roblox-user': { type: 'string', value: 'ID', summary: 'only entries about this Roblox user id' },
  username: { type: 'string', value: 'NAME', summary: 'only entries about this Roblox username (any case)' },
  code: { type: 'string', value: 'CODE', summary: 'only entries of this code (any case)' },
  since: { type: 'string', value: 'TIME', summary: `received at or after TIME: ${TIME_ARGUMENT_TEXT} ago` },
  until: { type: 'string', value: 'TIME', summary: 'received before TIME (as --since)' },
  before: { type: 'integer', value: 'ID', min: 1, summary: 'only entries older than entry ID (the next page, as the last line says)' },
  limit: { type: 'integer', value: 'N', min: 1, max: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT, summary: 'at most N entries' },
  json: { type: 'boolean', summary: 'print one line of JSON, an array of the entries with every stored field, instead of the table' },
} as const

const LOGS: CommandGroup = {
  kind: 'group',
  name: 'logs',
  summary: 'stored log entries',
  commands: [
    adminCommand({
      name: 'replay',
      summary: "send a category's entries received since a time again",
      args: {
        flags: {
          category: { type: 'string', value: 'CATEGORY', required: true, summary: CATEGORY.summary },
          since: { type: 'string', value: 'ISO_TIME', required: true, summary: 'like 2024-05-01 or 2024-05-01T12:00:00Z' },
        },
      },
      run: async (ctx, { flags }) => (await delivery()).replayLogsCommand(ctx, flags.category, flags.since),
    }),
    adminCommand({
      name: 'prune',
      summary: 'delete entries stored more than LOG_RETENTION_DAYS (or --days) ago, in batches; entries an infraction references or still pending delivery stay',
      args: {
        flags: {
          'dry-run': { type: 'boolean', summary: 'print what would go (count, oldest and newest, what stays and why) and delete nothing' },
          days: { type: 'integer', value: 'N', min: MIN_RETENTION_DAYS, max: MAX_RETENTION_DAYS, summary: 'entries stored more than N days ago (default: LOG_RETENTION_DAYS)' },
        },
      },
      run: async (ctx, { flags }) => (await import('./retention-commands.js')).pruneLogsCommand(ctx, { dryRun: flags['dry-run'] === true, days: flags.days }),
    }),
    adminCommand({
      name: 'search',
      summary: 'stored entries, newest first, by category, event type, player, code and time; a table, or JSON with --json',
      args: { flags: LOG_SEARCH_FLAGS },
      run: async (ctx, { flags }) => {
        const { searchLogsCommand, stdoutWidth } = await import('./log-search-commands.js')
        return searchLogsCommand(ctx, {
          category: flags.category,
          eventType: flags['event-type'],
          robloxUser: flags['roblox-user'],
          username: flags.username,
          code: flags.code,
          since: flags.since,
          until: flags.until,
          before: flags.before,
          limit: flags.limit,
          json: flags.json === true,
          terminalWidth: stdoutWidth(),
        })
      },
    }),
  ],
}

const WATCHLIST: CommandGroup = {
  kind: 'group',
  name: 'watchlist',
  summary: 'Roblox users the safety check always flags for review',
  commands: [
    adminCommand({
      name: 'add',
      summary: 'add a user, or update the reason of one already listed',
      args: { positionals: [ROBLOX_USER_ID], flags: { reason: { type: 'string', value: 'TEXT', summary: 'why, shown to moderators' } } },
      run: async (ctx, { positionals: [id], flags }) => (await delivery()).changeWatchlistCommand(ctx, 'add', id, flags.reason),
    }),
    adminCommand({
      name: 'remove',
      summary: 'remove a user',
      args: { positionals: [ROBLOX_USER_ID] },
      run: async (ctx, { positionals: [id] }) => (await delivery()).changeWatchlistCommand(ctx, 'remove', id, undefined),
    }),
    adminCommand({ name: 'list', summary: 'every listed user with reason and who added them', args: {}, run: async (ctx) => (await delivery()).listWatchlistCommand(ctx) }),
  ],
}

const INFRACTIONS: CommandGroup = {
  kind: 'group',
  name: 'infractions',
  summary: 'moderation entries attached to chat users',
  commands: [
    adminCommand({
      name: 'list',
      summary: 'infractions, newest first: id, time, code, Roblox user, chat user, event, description, issuer, counting or pardoned',
      args: {
        flags: {
          code: { type: 'string', value: 'CODE', summary: 'only those of this code (any case)' },
          'roblox-user': { type: 'string', value: 'ID', summary: 'only those of this Roblox user id' },
          'chat-user': { type: 'string', value: 'ID', summary: 'only those of this Discord user id' },
          before: { type: 'integer', value: 'ID', min: 1, summary: 'only those older than this infraction id (the next page)' },
          limit: { type: 'integer', value: 'N', min: 1, max: 1000, default: 50, summary: 'at most N infractions' },
        },
      },
      run: async (ctx, { flags }) =>
        (await delivery()).listInfractionsCommand(ctx, { code: flags.code, robloxUser: flags['roblox-user'], chatUser: flags['chat-user'], before: flags.before, limit: flags.limit }),
    }),
    adminCommand({
      name: 'pardon',
      summary: 'pardon an infraction: it stays in the log but no longer counts for the safety check',
      args: { positionals: [{ name: 'ID', summary: 'infraction id, as infractions list shows it' }], flags: { reason: { type: 'string', value: 'TEXT', summary: 'why, kept with the pardon' } } },
      run: async (ctx, { positionals: [id], flags }) => (await delivery()).pardonInfractionCommand(ctx, id, flags.reason),
    }),
  ],
}

const users = () => import('./users-commands.js')

const USERS: CommandGroup = {
  kind: 'group',
  name: 'users',
  summary: "a chat user's data: what is kept (as /mydata shows it) and its erasure (as /forget), for requests by other channels",
  commands: [
    adminCommand({
      name: 'show',
      summary: 'print what the service keeps about a chat user, as /mydata shows it',
      args: { flags: { ...CHAT_USER.flags, json: { type: 'boolean', summary: 'print the JSON export instead (the /mydata attachment)' } } },
      run: async (ctx, { flags }) => (await users()).usersShowCommand(ctx, flags['chat-user'], flags.json === true),
    }),
    adminCommand({
      name: 'forget',
      summary: "erase a chat user's data as /forget does; without --yes, print what would be erased and change nothing",
      args: { flags: { ...CHAT_USER.flags, yes: { type: 'boolean', summary: 'erase (without it nothing changes)' } } },
      run: async (ctx, { flags }) => (await users()).usersForgetCommand(ctx, flags['chat-user'], flags.yes === true),
    }),
  ],
}

const QUEUE_FLAG = { type: 'string', value: 'QUEUE', summary: `only ${QUEUE_ARGUMENT_TEXT} (default: every queue)` } as const

const JOBS: CommandGroup = {
  kind: 'group',
  name: 'jobs',
  summary: 'queued jobs that ended in failed (a payload that can never succeed, or a repeated unknown error)',
  commands: [
    adminCommand({
      name: 'failed',
      summary: 'list failed jobs: queue, id, name, attempts, age and reason',
      args: { flags: { queue: QUEUE_FLAG, limit: { type: 'integer', value: 'N', min: 1, max: 10000, default: 50, summary: 'at most N jobs per queue, most recent first' } } },
      run: async (ctx, { flags }) => (await jobs()).failedJobsCommand(ctx, flags.queue, flags.limit),
    }),
    adminCommand({
      name: 'redrive',
      summary: 'move failed jobs back to wait, their attempts counted from zero',
      args: {
        positionals: [{ name: 'ID', optional: true, repeats: true, summary: 'job id, as jobs failed lists it' }],
        flags: { queue: QUEUE_FLAG, all: { type: 'boolean', summary: 'every failed job (of --queue, or of every queue)' } },
      },
      run: async (ctx, { positionals, flags }) => (await jobs()).redriveJobsCommand(ctx, flags.queue, positionals, flags.all === true),
    }),
  ],
}

// Leaving the sandbox (issue 32): `presence-link sandbox reset`, under the sandbox process's own word.
const SANDBOX_ADMIN = [
  adminCommand({
    name: 'reset',
    summary: "remove the log destinations a run against the sandbox left (their pending entries are set aside); lists them only, without --yes",
    args: { flags: { yes: { type: 'boolean', summary: 'remove them (without it: print what would be removed, change nothing)' } } },
    run: async (ctx, { flags }) => (await import('./sandbox-commands.js')).sandboxResetCommand(ctx, { yes: flags.yes === true }),
  }),
] as const

// Backup and restore (issue 32): docs/operations.md, "Backup and restore".
const BACKUP_COMMANDS = [
  adminCommand({
    name: 'backup',
    summary: "write a consistent, dated backup of the service's database (mariadb-dump in one transaction, gzipped)",
    args: { flags: { out: { type: 'string', value: 'DIR', default: '.', summary: 'directory of the backup file presence-link-DB-TIME.sql.gz (created if missing)' } } },
    run: async (ctx, { flags }) => (await import('./backup-commands.js')).backupCommand(ctx, { out: flags.out ?? '.' }),
  }),
  adminCommand({
    name: 'restore',
    summary: 'load a backup into the empty database of DATABASE_URL, migrate it, and have the Redis copies rewritten',
    args: {
      positionals: [{ name: 'FILE', summary: 'a file presence-link backup wrote (.sql.gz, or .sql)' }],
      flags: { force: { type: 'boolean', summary: 'restore into a database that has tables (the backup replaces those it holds)' } },
    },
    run: async (ctx, { positionals: [file], flags }) => (await import('./backup-commands.js')).restoreCommand(ctx, file ?? '', { force: flags.force === true }),
  }),
] as const

/** The command table: processes first, then administration, in the order `presence-link --help` lists them. */
export const COMMANDS: readonly Command[] = [
  { kind: 'process', name: 'serve', summary: 'everything: front cluster, workers, gateway (and the sandbox without DISCORD_TOKEN)', args: {}, entry: new URL('../serve.js', import.meta.url) },
  { kind: 'process', name: 'front', summary: 'the HTTP front (node:cluster, FRONT_WORKERS processes on PORT)', args: {}, entry: new URL('../front.js', import.meta.url) },
  {
    kind: 'process',
    name: 'worker',
    summary: 'queue consumers, delivery to Discord and push to Roblox',
    args: { positionals: [{ name: 'CONSUMER', optional: true, repeats: true, summary: 'bind, log, audit, delivery or push; all of them when none is named' }] },
    entry: new URL('../../workers/worker.js', import.meta.url),
  },
  { kind: 'process', name: 'gateway', summary: 'the Discord gateway for SHARD_IDS of SHARD_COUNT', args: {}, entry: new URL('../gateway.js', import.meta.url) },
  { kind: 'process', ...SANDBOX_COMMAND, entry: new URL('../sandbox.js', import.meta.url), commands: SANDBOX_ADMIN },
  adminCommand({ name: 'migrate', summary: 'migrate the database to the latest schema', args: {}, run: async (ctx) => (await admin()).migrateCommand(ctx) }),
  ...BACKUP_COMMANDS,
  adminCommand({
    name: 'version',
    summary: 'the release: version, commit, Node and the newest migration (build_info reports the same)',
    args: {},
    run: async () => (await import('./version-command.js')).versionCommand(),
  }),
  KEYS,
  PUSH,
  CODES,
  GUILDS,
  DESTINATIONS,
  LOGS,
  WATCHLIST,
  INFRACTIONS,
  JOBS,
  USERS,
  {
    kind: 'group',
    name: 'discord',
    summary: 'setting up the Discord bot (docs/discord.md)',
    commands: [
      adminCommand({
        name: 'invite-url',
        summary: 'print the URL that adds the bot to a server, with the scopes and permissions it needs',
        args: { flags: { 'application-id': { type: 'string', value: 'ID', summary: "the application's id (default: read from DISCORD_TOKEN)" } } },
        run: async (ctx, { flags }) => (await import('./discord-commands.js')).inviteUrlCommand(ctx, flags['application-id']),
      }),
    ],
  },
]
